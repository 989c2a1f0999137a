# A real Python MCP client (the official SDK, pinned in requirements.txt) for
# io.onceport.endtoend.HonestWaitingTest: one session, the same tools/call twice. Between the two
# calls it waits for a line on stdin (the test authorizes the session first). Every observation is
# one JSON line on stdout.
#
#   python3 honest_waiting.py URL TOKEN
import asyncio
import json
import sys
import time

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

URL, TOKEN = sys.argv[1], sys.argv[2]
RELEASE = {"service": "honest-waiting", "version": "1.0.0"}


def out(event, **data):
    print(json.dumps({"event": event, **data}), flush=True)


async def call(session, event):
    started = time.monotonic()
    result = await session.call_tool("create_release", RELEASE)
    out(event, seconds=round(time.monotonic() - started, 3), isError=result.is_error,
        text=result.content[0].text if result.content else "", structured=result.structured_content)


async def main():
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(120)) as http:
        async with streamable_http_client(URL, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await call(session, "first")
                await asyncio.to_thread(sys.stdin.readline)
                await call(session, "second")


asyncio.run(main())
