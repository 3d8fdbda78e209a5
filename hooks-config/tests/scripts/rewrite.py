#!/usr/bin/env python3
"""Rewrites the path argument into a sandbox directory."""
import json, os, sys

event = json.load(sys.stdin)
args = dict(event["tool_input"])
args["path"] = "/sandbox/" + os.path.basename(args.get("path", ""))
print(json.dumps({"hookSpecificOutput": {"hookEventName": event["hook_event_name"], "updatedInput": args}}))
