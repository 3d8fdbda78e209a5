#!/usr/bin/env bash
cat > /dev/null
echo '{"hookSpecificOutput": {"permissionDecision": "deny"'
