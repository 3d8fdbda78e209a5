#!/usr/bin/env bash
# Reads the event and allows it, in JSON.
cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
