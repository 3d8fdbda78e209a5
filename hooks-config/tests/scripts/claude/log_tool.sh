#!/usr/bin/env bash
# PostToolUse hook: append every tool call to a JSON Lines log.
LOG_FILE="${1:-$HOME/.claude/tool-usage.jsonl}"
mkdir -p "$(dirname "$LOG_FILE")"
INPUT=$(cat)
echo "$INPUT" | tr -d '\n' >> "$LOG_FILE"
echo >> "$LOG_FILE"
exit 0
