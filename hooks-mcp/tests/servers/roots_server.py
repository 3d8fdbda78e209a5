"""A small stdio MCP server, on the official Python SDK's MCPServer, that asks
its client for the roots whenever it hears they changed (as server-filesystem
does), outside any call, and appends what came back to a file: one line per
request, `roots: URI ...` or `error: MESSAGE`.

Usage: python roots_server.py LOG
"""

import sys

import mcp.types as types
from mcp.server.mcpserver import MCPServer

LOG = sys.argv[1]

server = MCPServer("roots-test-server")


@server.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


async def roots_changed(ctx, _params) -> None:
    try:
        result = await ctx.session.list_roots()
        line = "roots: " + " ".join(str(root.uri) for root in result.roots)
    except Exception as error:  # noqa: BLE001 - every outcome is the record
        line = f"error: {error}"
    with open(LOG, "a", encoding="utf-8") as file:
        file.write(line.replace("\n", " ") + "\n")


server._lowlevel_server.add_notification_handler(
    "notifications/roots/list_changed", types.NotificationParams, roots_changed
)

if __name__ == "__main__":
    server.run()
