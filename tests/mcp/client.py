"""A real MCP client session with `debrief mcp`, for tests/mcp.rs.

Reads one JSON document on stdin:
  {"command": [program, arg, ...], "cwd": folder,
   "steps": [{"tool": name, "arguments": {...}, "cursor_from": i?}, ...]}
starts the server as the command, over stdio, with the official Python SDK's client:
initialize, list the tools, call each step's tool (with "cursor_from": i, the
arguments get "cursor" = step i's next cursor), and lists the tools
once more at the end (the server is still up after every error). Prints one JSON
document: the initialize result, the tools, and per step either {"result": ...} (the
CallToolResult as sent) or {"error": {"code", "message"}} (a JSON-RPC error).
"""

import asyncio
import json
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared import exceptions

MCPError = getattr(exceptions, "MCPError", None) or getattr(exceptions, "McpError")


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(spec):
    params = StdioServerParameters(command=spec["command"][0], args=spec["command"][1:], cwd=spec.get("cwd"))
    out = {"steps": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            out["initialize"] = dump(await session.initialize())
            out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
            for step in spec["steps"]:
                arguments = dict(step.get("arguments", {}))
                if "cursor_from" in step:
                    previous = out["steps"][step["cursor_from"]]["result"]
                    if "structuredContent" in previous:
                        arguments["cursor"] = previous["structuredContent"]["next_cursor"]
                    else:  # a text result (writeup) says its cursor in words
                        arguments["cursor"] = re.search(r'cursor "([^"]+)"', previous["content"][-1]["text"]).group(1)
                try:
                    result = await session.call_tool(step["tool"], arguments)
                    out["steps"].append({"result": dump(result)})
                except MCPError as e:
                    out["steps"].append({"error": {"code": e.error.code, "message": e.error.message}})
            out["tools_after"] = len((await session.list_tools()).tools)
    json.dump(out, sys.stdout)


asyncio.run(main(json.load(sys.stdin)))
