"""A scripted MCP client over Streamable HTTP, on the official Python SDK.

Usage: python http_drive.py SCRIPT.json

The script names the server's endpoint (`url`), an optional bearer token
(`token`, sent as `Authorization: Bearer TOKEN`), an optional client name, and
`sessions`: a list of step lists, each run in an MCP session of its own, one
after the other. A step is {"list_tools": true} or {"call": NAME, "arguments":
{...}}. One JSON object, the transcript, is printed to stdout:
{"sessions": [{"protocol_version", "server_info", "steps": [...]}, ...]};
everything else goes to stderr.
"""

import httpx2
import mcp.types as types
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client

# The stdio client's pieces: the request bound, the JSON form of results, and
# the command line (this script's directory is on the import path).
from drive import REQUEST_TIMEOUT_SECONDS, call_tool, dump, main


async def run_step(session, step):
    try:
        if step.get("list_tools"):
            listed = await session.list_tools()
            return {"tools": [tool.name for tool in listed.tools]}
        if "call" in step:
            return await call_tool(session, step["call"], step.get("arguments", {}))
    except MCPError as error:
        return {"protocol_error": error.message, "code": error.code}
    raise ValueError(f"unknown step {step!r}: expected {{\"list_tools\": true}} or {{\"call\": ...}}")


async def run_session(url, token, client_info, steps):
    # The SDK takes headers through the HTTP client it is given.
    http_client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) if token else None
    async with streamable_http_client(url, http_client=http_client) as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=REQUEST_TIMEOUT_SECONDS,
            client_info=client_info,
        ) as session:
            initialized = await session.initialize()
            return {
                "protocol_version": initialized.protocol_version,
                "server_info": dump(initialized.server_info),
                "steps": [await run_step(session, step) for step in steps],
            }


async def run(script):
    client_info = types.Implementation(name=script.get("client_name", "hooks-mcp-http-drive"), version="0.0.0")
    token = script.get("token")
    return {"sessions": [await run_session(script["url"], token, client_info, steps) for steps in script["sessions"]]}


if __name__ == "__main__":
    main(run, "http_drive.py")
