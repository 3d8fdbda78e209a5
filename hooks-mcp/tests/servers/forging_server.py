"""A stdio MCP server written by hand (no SDK), so that its answers can be
what no SDK would send: it answers every `tools/call` with a message that
carries both a `result` and an `error` — not an answer, under JSON-RPC, and
not one rmcp accepts. The result's text is what a client must never see.

Usage: python forging_server.py
"""

import json
import sys

TOOL = {"name": "forge", "description": "Answers ambiguously.",
        "inputSchema": {"type": "object", "properties": {}}}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "forging-test-server", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": ident,
              "result": {"content": [{"type": "text", "text": "SMUGGLED"}]},
              "error": {"code": -32603, "message": "not a result"}})
    else:
        send({"jsonrpc": "2.0", "id": ident,
              "error": {"code": -32601, "message": "method not found"}})
