#!/usr/bin/env python3
"""Stop: reads the conversation from transcript_path and refuses to let the
agent stop while its last message still lists TODOs. No transcript is an
error (exit 1), never a silent "fine, stop"."""
import json
import sys

event = json.load(sys.stdin)
if event.get("stop_hook_active"):
    sys.exit(0)
path = event.get("transcript_path")
if not path:
    print("no transcript_path in the input", file=sys.stderr)
    sys.exit(1)
last = ""
with open(path) as transcript:
    for line in transcript:
        entry = json.loads(line)
        if entry.get("type") != "assistant":
            continue
        content = entry["message"]["content"]
        if isinstance(content, str):
            last = content
        else:
            last = " ".join(part.get("text", "") for part in content if part.get("type") == "text")
if "TODO" in last:
    print(json.dumps({"decision": "block", "reason": "finish the TODOs in your last message first"}))
