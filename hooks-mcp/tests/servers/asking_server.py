"""A small stdio MCP server, on the official Python SDK's MCPServer, whose
tool asks the client's user a question (elicitation) before it acts, and
another that takes as long as asked (a hanging upstream).

Usage: python asking_server.py
"""

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("asking-test-server")


class Confirmation(BaseModel):
    sure: bool


@server.tool()
async def drop_cache(name: str, ctx: Context) -> str:
    """Drops a cache, once the user confirms."""
    answer = await ctx.elicit(f"Really drop the cache {name}?", Confirmation)
    if answer.action == "accept" and answer.data.sure:
        return f"dropped {name}"
    return f"kept {name} ({answer.action})"


@server.tool()
async def nap(seconds: float) -> str:
    """Sleeps, then says so: an upstream that hangs, for as long as asked."""
    import anyio

    await anyio.sleep(seconds)
    return f"slept {seconds}s"


if __name__ == "__main__":
    server.run()
