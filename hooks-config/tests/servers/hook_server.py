#!/usr/bin/env python3
"""A local HTTP hook server for the tests. Prints its port, then serves:

/allow /deny /rewrite /context (echoes what it received) /slow /error /big
/redirect-private (302 to a private address).
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        event = json.loads(self.rfile.read(length) or b"{}")
        path = self.path
        if path == "/allow":
            self.answer(200, {"hookSpecificOutput": {"permissionDecision": "allow"}})
        elif path == "/deny":
            self.answer(200, {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "the remote policy says no"}})
        elif path == "/rewrite":
            args = dict(event.get("tool_input", {}))
            args["dry_run"] = True
            self.answer(200, {"hookSpecificOutput": {"updatedInput": args}})
        elif path == "/context":
            seen = f"{event['hook_event_name']} {event.get('tool_name')} {self.headers.get('x-hook-token')}"
            self.answer(200, {"hookSpecificOutput": {"additionalContext": seen}})
        elif path == "/slow":
            time.sleep(5)
            self.answer(200, {})
        elif path == "/error":
            self.answer(500, {"error": "boom"})
        elif path == "/big":
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"x" * (2 * 1024 * 1024))
        elif path == "/redirect-private":
            self.send_response(302)
            self.send_header("location", "http://10.255.255.1/steal")
            self.end_headers()
        else:
            self.answer(404, {})

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
print(server.server_address[1], flush=True)
server.serve_forever()
