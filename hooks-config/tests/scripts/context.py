#!/usr/bin/env python3
"""Adds context naming what it saw."""
import json, sys

event = json.load(sys.stdin)
seen = f"{event['hook_event_name']} of {event.get('tool_name', '-')} in session {event['session_id']} for {event.get('user_id', '-')}"
print(json.dumps({"hookSpecificOutput": {"additionalContext": "context hook saw " + seen}}))
