#!/usr/bin/env python3
"""A PreToolUse hook for the example: steers searches toward the wiki."""
import json
import sys

event = json.load(sys.stdin)
query = event.get("tool_input", {}).get("q", "")
context = f"Search for {query!r}: policy questions are answered best by the internal wiki."
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": context}}))
