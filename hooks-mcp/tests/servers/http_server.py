"""A small MCP server over Streamable HTTP, on the official Python SDK's MCPServer.

Usage: python http_server.py

It listens on 127.0.0.1, on a port the system picks, and prints one line to
stdout once connections are accepted: `listening on http://127.0.0.1:PORT/mcp`.
It runs until killed; its log goes to stderr.
"""

import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer

HOST = "127.0.0.1"

server = MCPServer("http-test-server")


@server.tool()
def add(a: int, b: int) -> str:
    """Adds two whole numbers."""
    return str(a + b)


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return text


@server.tool()
def big(megabytes: float) -> str:
    """Answers with this many megabytes of text."""
    return "x" * int(megabytes * 1024 * 1024)


async def serve():
    # Bound and listening before the port is told: a client that connects at
    # once waits in the backlog rather than being refused.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    app = server.streamable_http_app(host=HOST)
    config = uvicorn.Config(app, log_level="warning")
    print(f"listening on http://{HOST}:{port}/mcp", flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    anyio.run(serve)
