// The official TypeScript SDK client calling a read_only tool on Onceport's read path, for
// io.onceport.endtoend.ReadPathSdkClientTest. Every observation is one JSON line on stdout.
//   node read-e2e.mjs URL TOKEN TOOL ARGUMENTS_JSON   set the log level to debug, call TOOL twice with
//                                                     a progress handler, print progress, logs, results
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, token, tool, argumentsJson] = process.argv.slice(2);
const out = (event, data) => process.stdout.write(JSON.stringify({ event, ...data }) + '\n');
const fail = (e) => { out('error', { message: String(e?.stack ?? e) }); process.exit(2); };
setTimeout(() => fail(new Error('read-e2e: no result within 60 s')), 60_000).unref();

try {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'onceport-read-e2e', version: '1.0.0' });
  client.onerror = (e) => out('client-error', { message: String(e?.message ?? e) });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => out('log', { data: n.params.data }));
  await client.connect(transport);
  await client.setLoggingLevel('debug');
  for (let i = 0; i < 2; i++) {
    const result = await client.callTool({ name: tool, arguments: JSON.parse(argumentsJson) }, CallToolResultSchema, {
      onprogress: (p) => out('progress', { call: i, progress: p.progress, message: p.message }),
    });
    out('result', { call: i, result });
  }
  await client.close();
} catch (e) {
  fail(e);
}
