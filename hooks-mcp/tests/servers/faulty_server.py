"""A small stdio MCP server, on the official Python SDK's MCPServer, that
fails the ways real servers do: an answer larger than one MCP message may
be, and a crash in the middle of a call.

If the file named by FAULTY_REFUSE_START exists, the server exits at start
(a server that cannot come back up, until the file is removed).

Usage: python faulty_server.py
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

refuse = os.environ.get("FAULTY_REFUSE_START")
if refuse and os.path.exists(refuse):
    print("faulty_server: refusing to start", file=sys.stderr)
    sys.exit(4)

server = MCPServer("faulty-test-server")


@server.tool()
def big(megabytes: float) -> str:
    """Answers with this many megabytes of text."""
    return "x" * int(megabytes * 1024 * 1024)


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
def crash() -> str:
    """Exits at once, in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    server.run()
