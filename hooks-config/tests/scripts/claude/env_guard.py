#!/usr/bin/env python3
"""PreToolUse hook: keep Claude away from .env files."""
import json
import sys

data = json.load(sys.stdin)
tool_input = data.get("tool_input", {})
file_path = tool_input.get("file_path") or tool_input.get("path") or ""

if file_path.endswith(".env") or "/.env." in file_path or file_path.split("/")[-1].startswith(".env"):
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"Access to {file_path} is blocked: environment files hold secrets.",
        }
    }
    print(json.dumps(output))
    sys.exit(0)

sys.exit(0)
