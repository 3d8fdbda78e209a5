#!/usr/bin/env python3
"""Answers with its arguments, as a JSON list in additionalContext."""
import json
import sys

print(json.dumps({"hookSpecificOutput": {"additionalContext": json.dumps(sys.argv[1:])}}))
