#!/usr/bin/env python3
"""PreToolUse hook for Bash: refuse destructive rm commands.

Exit code 2 blocks the tool call and shows stderr to Claude.
"""
import json
import re
import sys

try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

tool_name = input_data.get("tool_name", "")
command = input_data.get("tool_input", {}).get("command", "")

if tool_name != "Bash" or not command:
    sys.exit(0)

dangerous_patterns = [
    r"\brm\s+.*-[a-z]*r[a-z]*f",
    r"\brm\s+.*-[a-z]*f[a-z]*r",
    r"\brm\s+--recursive\s+--force",
]

for pattern in dangerous_patterns:
    if re.search(pattern, command):
        print(f"Blocked: '{command}' is a recursive forced delete. Remove specific files instead.", file=sys.stderr)
        sys.exit(2)

sys.exit(0)
