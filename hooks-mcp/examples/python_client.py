"""An agent's MCP client (the official Python SDK) calling a server through
hooks-mcp: the gateway is the server it starts; the real server is the
command after `--`.

Usage: python python_client.py hooks.toml -- uvx mcp-server-time
"""

import sys

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(config, server):
    gateway = StdioServerParameters(
        command="hooks-mcp", args=["--config", config, "--", *server]
    )
    async with stdio_client(gateway) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            print("tools:", ", ".join(tool.name for tool in listed.tools))
            result = await session.call_tool("get_current_time", {"timezone": "UTC"})
            # A refusal by a hook is a tool error with the reason: the model reads it.
            print("refused:" if result.is_error else "answer:", result.content[0].text)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[3:])
