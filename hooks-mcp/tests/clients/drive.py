"""A scripted MCP client built on the official Python SDK.

Usage: python drive.py SCRIPT.json

The script names a stdio server, optional extra environment, an optional
client name, an optional canned answer to elicitation requests, and the steps
to run. One JSON object, the transcript, is printed to stdout; everything else
(the server's stderr, logging, tracebacks) goes to stderr, so a caller can
parse stdout as it is.
"""

import json
import sys

import anyio
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

# Bounds a single request, so a server that never answers fails the run with a
# traceback instead of hanging until the caller's own timeout kills it silently.
REQUEST_TIMEOUT_SECONDS = 30.0


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def elicitation_answerer(answer, log):
    async def answer_elicitation(context, params):
        request = {"mode": params.mode, "message": params.message}
        if params.mode == "form":
            request["schema"] = params.requested_schema
        else:
            request["url"] = params.url
        log.append(request)
        return types.ElicitResult(action=answer["action"], content=answer.get("content"))

    return answer_elicitation


async def list_tools(session):
    tools = []
    cursor = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        for tool in page.tools:
            listed = {
                "name": tool.name,
                "description": tool.description,
                "inputSchema": tool.input_schema,
            }
            # What a server declares of its tools' effects (MCP's hints) and their titles.
            if tool.title is not None:
                listed["title"] = tool.title
            if tool.annotations is not None:
                listed["annotations"] = dump(tool.annotations)
            tools.append(listed)
        cursor = page.next_cursor
        if not cursor:
            return {"tools": tools}


async def call_tool(session, name, arguments):
    result = await session.call_tool(name, arguments)
    return {
        "is_error": bool(result.is_error),
        "content": [dump(block) for block in result.content],
        "structured": result.structured_content,
    }


async def run_step(session, step):
    try:
        if step.get("list_tools"):
            return await list_tools(session)
        if "call" in step:
            return await call_tool(session, step["call"], step.get("arguments", {}))
    except MCPError as error:
        return {"protocol_error": error.message, "code": error.code}
    raise ValueError(f"unknown step {step!r}: expected {{\"list_tools\": true}} or {{\"call\": ...}}")


async def run(script):
    command, *args = script["server"]
    server = StdioServerParameters(command=command, args=args, env=script.get("env"))
    elicitations = []
    callback = None
    if "elicitation" in script:
        callback = elicitation_answerer(script["elicitation"], elicitations)
    client_info = types.Implementation(name=script.get("client_name", "hooks-mcp-drive"), version="0.0.0")

    steps = []
    async with stdio_client(server) as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=REQUEST_TIMEOUT_SECONDS,
            elicitation_callback=callback,
            client_info=client_info,
        ) as session:
            initialized = await session.initialize()
            for step in script["steps"]:
                steps.append(await run_step(session, step))
    return {
        "protocol_version": initialized.protocol_version,
        "server_info": dump(initialized.server_info),
        "steps": steps,
        "elicitations": elicitations,
    }


def main(run=run, name="drive.py"):
    """Runs the script named on the command line with `run` and prints the transcript."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {name} SCRIPT.json")
    with open(sys.argv[1], encoding="utf-8") as file:
        script = json.load(file)
    transcript = anyio.run(run, script)
    json.dump(transcript, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
