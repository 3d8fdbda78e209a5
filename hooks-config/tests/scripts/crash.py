#!/usr/bin/env python3
"""Crashes: an uncaught exception exits with status 1."""
import json, sys

json.load(sys.stdin)
raise RuntimeError("the policy file is missing")
