#!/usr/bin/env python3
"""SessionStart: records what Claude Code says about the session, sets a
variable for later hooks through CLAUDE_ENV_FILE, and prints the project's
rules as plain text (context for the model on SessionStart)."""
import json
import os
import sys

event = json.load(sys.stdin)
seen = {key: event.get(key) for key in
        ("hook_event_name", "source", "model", "permission_mode", "transcript_path", "session_id")}
seen["agent_id" in event and "agent_id" or "no_agent_id"] = event.get("agent_id")
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(json.dumps(seen) + "\n")
with open(os.environ["CLAUDE_ENV_FILE"], "a") as env_file:
    env_file.write("export REVIEW_MODE=strict\n")
print("Session rules: run the tests before stopping.")
