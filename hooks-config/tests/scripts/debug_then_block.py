#!/usr/bin/env python3
"""A blocking hook that prints a debug line before its JSON answer."""
import json, sys
sys.stdin.read()
print("checking the command against policy...")
print(json.dumps({"decision": "block", "reason": "force pushes are not allowed"}))
