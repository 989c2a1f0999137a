// A real MCP client (the official TypeScript SDK) for io.onceport.endtoend.McpUpstreamEndToEndTest
// and the latency comparison: one step per process, every observation one JSON line on stdout.
//
//   node upstream-client.mjs URL TOKEN list                         tools with their annotations
//   node upstream-client.mjs URL TOKEN call TOOL ARGS [MS] [KEY]    one tools/call; gives up after MS
//                                                                   (prints {"event":"gave-up"}); KEY is
//                                                                   sent as params.idempotencyKey
//   node upstream-client.mjs URL TOKEN bench TOOL N                 N sequential create-style calls with
//                                                                   unique arguments; prints each latency
// TOKEN "-" sends no Authorization header (an upstream server called directly).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, token, mode, ...args] = process.argv.slice(2);
const out = (event, data) => process.stdout.write(JSON.stringify({ event, ...data }) + '\n');
const fail = (e) => { out('error', { message: String(e?.stack ?? e) }); process.exit(2); };
setTimeout(() => fail(new Error('upstream-client: not done within 120 s')), 120_000).unref();

async function connect() {
  const headers = token === '-' ? {} : { Authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'onceport-upstream-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

try {
  const client = await connect();
  if (mode === 'list') {
    const tools = await client.listTools();
    out('tools', { tools: tools.tools.map((t) => ({ name: t.name, annotations: t.annotations ?? {} })) });
  } else if (mode === 'call') {
    const [tool, json, ms, key] = args;
    const params = { name: tool, arguments: JSON.parse(json) };
    if (key) params.idempotencyKey = key;
    try {
      const result = await client.request({ method: 'tools/call', params }, CallToolResultSchema,
        ms ? { timeout: Number(ms) } : undefined);
      out('result', { result });
    } catch (e) {
      if (String(e?.message ?? e).includes('timed out')) {
        out('gave-up', { message: String(e.message) });
        process.exit(0); // the answer is lost to this client; the test retries in a new process
      }
      throw e;
    }
  } else if (mode === 'bench') {
    const [tool, n] = args;
    const stamp = `${process.pid}-${Date.now()}`;
    for (let i = 0; i < Number(n); i++) {
      const started = process.hrtime.bigint();
      const result = await client.callTool({ name: tool, arguments: { title: `bench-${stamp}-${i}` } });
      const micros = Number((process.hrtime.bigint() - started) / 1000n);
      out('sample', { micros, isError: result.isError === true });
    }
  } else {
    fail(new Error(`unknown mode ${mode}`));
  }
  await client.close();
  process.exit(0);
} catch (e) {
  fail(e);
}
