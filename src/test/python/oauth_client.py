"""The official Python MCP SDK's OAuth support against Onceport as an OAuth 2.1 resource server, for
io.onceport.endtoend.OAuthResourceServerTest.

    python3 oauth_client.py URL ISSUER CLIENT_ID SCOPE SERVICE

ClientCredentialsOAuthProvider does the flow itself: the 401's WWW-Authenticate -> protected-resource
metadata -> the authorization server's metadata -> a client-credentials token for the resource ->
the calls. Every HTTP exchange is one JSON line (method, URL, status; never a token).
"""
import asyncio
import json
import sys

import httpx2
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


def out(event, **data):
    sys.stdout.write(json.dumps({"event": event, **data}) + "\n")
    sys.stdout.flush()


class MemoryStorage:
    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def log_response(response):
    out("http", method=response.request.method, url=str(response.request.url), status=response.status_code)


async def main(url, issuer, client_id, scope, service):
    provider = ClientCredentialsOAuthProvider(server_url=url, storage=MemoryStorage(), client_id=client_id,
                                              client_secret="client-secret", scope=scope, issuer=issuer)
    async with httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(60.0),
                                  event_hooks={"response": [log_response]}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                out("tools", names=[t.name for t in tools.tools])
                result = await session.call_tool("oauth_act", {"service": service})
                out("act", result=result.model_dump(mode="json", by_alias=True))


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(*sys.argv[1:6]), timeout=90))
    except Exception as e:
        out("error", message=repr(e))
        sys.exit(2)
