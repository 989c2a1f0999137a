"""The official Python MCP SDK against Onceport, for io.onceport.endtoend.SdkCancellationEndToEndTest.

    python3 timeout_retry.py URL TOKEN SERVICE SECONDS

create_release with the SDK's own `read_timeout_seconds`: the SDK gives up (and, by its own rules,
sends notifications/cancelled). Prints the error, waits for a line "retry" on stdin, then retries
the same call. Every observation is one JSON line on stdout.
"""
import asyncio
import json
import sys
import time

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


def out(event, **data):
    sys.stdout.write(json.dumps({"event": event, **data}) + "\n")
    sys.stdout.flush()


async def main(url, token, service, seconds):
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                out("session", protocolVersion=init.protocol_version)
                arguments = {"service": service, "version": "1.0.0"}
                started = time.time()
                try:
                    early = await session.call_tool("create_release", arguments, read_timeout_seconds=seconds)
                    out("unexpected-result", result=early.model_dump(mode="json", by_alias=True))
                except Exception as e:  # the SDK's own timeout error
                    out("gave-up", type=type(e).__name__, message=str(e), afterMs=int((time.time() - started) * 1000),
                        at=int(time.time() * 1000))
                line = await asyncio.to_thread(sys.stdin.readline)
                if line.strip() != "retry":
                    out("error", message="expected 'retry' on stdin, got %r" % line)
                    sys.exit(2)
                result = await session.call_tool("create_release", arguments, read_timeout_seconds=60)
                out("result", result=result.model_dump(mode="json", by_alias=True))


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])), timeout=90))
    except Exception as e:
        out("error", message=repr(e))
        sys.exit(2)
