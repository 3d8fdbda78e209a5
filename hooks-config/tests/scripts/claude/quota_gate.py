#!/usr/bin/env python3
"""UserPromptSubmit: with the quota spent, ends the session (continue:
false, with only `reason`, as many scripts write it); otherwise tells the
model what is left, as plain text (context on UserPromptSubmit)."""
import json
import os
import sys

json.load(sys.stdin)
with open(os.environ["QUOTA_FILE"]) as quota:
    left = int(quota.read().strip())
if left <= 0:
    print(json.dumps({"continue": False, "reason": "the team's monthly quota is spent"}))
else:
    print(f"Quota left this month: {left} prompts.")
