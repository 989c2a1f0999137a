// The official TypeScript SDK's OAuth support against Onceport as an OAuth 2.1 resource server, for
// io.onceport.endtoend.OAuthResourceServerTest. The SDK does the whole flow itself: the 401's
// WWW-Authenticate → protected-resource metadata → the authorization server's metadata → a
// client-credentials token for the advertised resource (RFC 8707) → the calls. A tool the token's
// scope does not allow is answered 403 insufficient_scope; the SDK then asks for a token again
// (1.32.2's client-credentials provider asks for its configured scope, not the challenged one, so
// the call stays refused: printed as act-refused).
// Every HTTP exchange is one JSON line on stdout (method, URL, status, WWW-Authenticate; never a token).
//
//   node oauth-client.mjs URL ISSUER CLIENT_ID FIRST_SCOPE SERVICE
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const [url, issuer, clientId, scope, service] = process.argv.slice(2);
const out = (event, data) => process.stdout.write(JSON.stringify({ event, ...data }) + '\n');
const fail = (e) => { out('error', { message: String(e?.stack ?? e) }); process.exit(2); };
setTimeout(() => fail(new Error('oauth-client: not done within 60 s')), 60_000).unref();

const logged = async (input, init) => {
  const response = await fetch(input, init);
  out('http', {
    method: init?.method ?? 'GET',
    url: String(input instanceof Request ? input.url : input),
    status: response.status,
    wwwAuthenticate: response.headers.get('www-authenticate'),
  });
  return response;
};

try {
  const provider = new ClientCredentialsProvider({ clientId, clientSecret: 'client-secret', expectedIssuer: issuer, scope });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: logged });
  const client = new Client({ name: 'onceport-oauth-e2e', version: '1.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  out('tools', { names: tools.tools.map((t) => t.name) });
  out('read', { result: await client.callTool({ name: 'oauth_read', arguments: { service } }) });
  try {
    out('act', { result: await client.callTool({ name: 'oauth_act', arguments: { service } }) });
  } catch (e) {
    out('act-refused', { message: String(e?.message ?? e), code: e?.code ?? null });
  }
  out('scope', { scope: provider.tokens()?.scope ?? null });
  await client.close();
  process.exit(0);
} catch (e) {
  fail(e);
}
