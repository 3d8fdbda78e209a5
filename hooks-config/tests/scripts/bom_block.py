#!/usr/bin/env python3
"""A blocking hook whose output starts with a UTF-8 byte-order mark, as
PowerShell's `Out-File -Encoding utf8` and some Windows tools write it."""
import json, sys
sys.stdin.read()
sys.stdout.buffer.write("\ufeff".encode() + json.dumps({"decision": "block", "reason": "outside business hours"}).encode() + b"\n")
