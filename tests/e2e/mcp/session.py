#!/usr/bin/env python3
"""An MCP session with `cairn mcp` through the official Python MCP SDK (`mcp` from PyPI), as a desktop
client would run it: list the tools and their annotations, ingest a note, find it with search, read it
whole with get, forget it, and see search no longer find it; then a server narrowed to public memory.

    python3 session.py CAIRN_BINARY
"""
import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

FAILURES = []


def check(cond, msg):
    print(("ok    " if cond else "FAIL  ") + msg, flush=True)
    if not cond:
        FAILURES.append(msg)


def field(obj, snake, camel):
    """A field of an SDK object: snake_case in SDK 2, camelCase in SDK 1."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel, None)


def structured(result):
    content = field(result, "structured_content", "structuredContent")
    if content is not None:
        return content
    return json.loads("".join(c.text for c in result.content if getattr(c, "text", None)))


async def session(binary, data, extra, body):
    env = dict(os.environ, CAIRN_EMBED__PROVIDER="none")
    env.pop("CAIRN_CONFIG", None)
    params = StdioServerParameters(command=binary, args=["--data-dir", data, "mcp", *extra], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            info = await s.initialize()
            await body(s, info)


async def owner(s, info):
    check("the owner" in (info.instructions or ""), "the server says it answers as the owner")
    tools = {t.name: t for t in (await s.list_tools()).tools}
    check(sorted(tools) == ["context", "forget", "get", "ingest", "intent", "search", "status"],
          f"seven tools: {sorted(tools)}")
    check(field(tools["search"].annotations, "read_only_hint", "readOnlyHint") is True, "search is read-only")
    check(field(tools["forget"].annotations, "destructive_hint", "destructiveHint") is True, "forget is destructive")
    check(field(tools["search"], "output_schema", "outputSchema") is not None, "search declares an output schema")
    k = field(tools["search"], "input_schema", "inputSchema")["properties"]["k"]
    check(k.get("minimum") == 1 and k.get("maximum") == 100, f"k is bounded 1..100: {k}")

    text = "The lighthouse keeper on Skerry Island is called Maren Tollefsen."
    r = await s.call_tool("ingest", {"text": text, "tags": ["island"]})
    note = structured(r)["id"]
    check(not field(r, "is_error", "isError") and note.startswith("note:"), f"ingest stored {note}")
    hits = structured(await s.call_tool("search", {"query": "who keeps the lighthouse on Skerry Island"}))["hits"]
    check(any(h["id"] == note for h in hits), "search finds the note at once, as the owner")
    item = structured(await s.call_tool("get", {"id": note}))
    check(item["text"] == text and item["tags"] == ["island"], "get returns the note whole")
    gone = structured(await s.call_tool("forget", {"ids": [note]}))
    check(gone["items"] == [note], "forget removes it")
    hits = structured(await s.call_tool("search", {"query": "who keeps the lighthouse on Skerry Island"}))["hits"]
    check(all(h["id"] != note for h in hits), "search no longer finds it")
    r = await s.call_tool("get", {"id": note})
    check(field(r, "is_error", "isError") is True, "get no longer finds it")
    r = await s.call_tool("search", {"query": "x", "k": 0})
    check(field(r, "is_error", "isError") is True, "k = 0 is refused")
    # A private note for the narrowed server below.
    await s.call_tool("ingest", {"text": "The harbour safe code is 4417.", "audience": "private"})
    await s.call_tool("ingest", {"text": "The harbour ferry leaves at noon.", "audience": "public"})


async def public(s, info):
    check("public memory only" in (info.instructions or ""), "a narrowed server says so")
    hits = structured(await s.call_tool("search", {"query": "harbour", "session_key": "agent:main:main"}))["hits"]
    texts = " ".join(h["snippet"] for h in hits)
    check("ferry" in texts and "4417" not in texts, "a public server never widens, whatever key is named")
    r = await s.call_tool("forget", {"before": "2100-01-01"})
    check(field(r, "is_error", "isError") is True, "a public server may not forget")


async def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        await session(binary, data, [], owner)
        await session(binary, data, ["--audience", "public"], public)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("MCP session with the official Python SDK: all checks passed")


if __name__ == "__main__":
    asyncio.run(main())
