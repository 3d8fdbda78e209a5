"""A small stdio MCP server, on the official Python SDK's MCPServer, whose
tool asks the client's user a question (elicitation) before it acts,
another that takes as long as asked (a hanging upstream), and one that waits
until it is cancelled and says so in a file (a cancellation seen upstream).

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


@server.tool()
async def wait_until_cancelled(marker: str) -> str:
    """Writes `started` to `marker` and waits (up to ten minutes); if the
    request is cancelled meanwhile, writes `cancelled` there."""
    import anyio

    with open(marker, "w", encoding="utf-8") as file:
        file.write("started")
    try:
        await anyio.sleep(600)
    except anyio.get_cancelled_exc_class():
        with open(marker, "w", encoding="utf-8") as file:
            file.write("cancelled")
        raise
    return "not cancelled"


if __name__ == "__main__":
    server.run()
