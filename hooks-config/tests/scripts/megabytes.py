#!/usr/bin/env python3
"""Prints five megabytes."""
import sys

sys.stdin.read()
sys.stdout.write("x" * (5 * 1024 * 1024))
