#!/usr/bin/env python3
"""PostToolUse: replaces API keys in what the model reads
(updatedToolOutput), and keeps its own output out of logs (suppressOutput)."""
import json
import re
import sys

event = json.load(sys.stdin)
response = event.get("tool_response")
text = response if isinstance(response, str) else json.dumps(response)
if "sk-" in text:
    print(json.dumps({
        "suppressOutput": True,
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": re.sub(r"sk-[A-Za-z0-9]+", "[redacted]", text),
        },
    }))
