#!/usr/bin/env python3
"""PreToolUse: records the call (its id, the sub-agent if any, the mode a
SessionStart hook set), refuses destructive shell commands with a JSON
deny and a message for the person, and prints a stray line otherwise
(which Claude Code does not give the model on PreToolUse)."""
import json
import os
import sys

event = json.load(sys.stdin)
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(json.dumps({
        "hook_event_name": event["hook_event_name"],
        "tool_name": event["tool_name"],
        "tool_use_id": event.get("tool_use_id"),
        "agent_id": event.get("agent_id"),
        "has_agent_id": "agent_id" in event,
        "permission_mode": event.get("permission_mode"),
        "review_mode": os.environ.get("REVIEW_MODE"),
    }) + "\n")
command = event.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print(json.dumps({
        "systemMessage": "blocked a destructive command",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "rm -rf is not allowed here",
        },
    }))
else:
    print("checked " + event["tool_name"])
