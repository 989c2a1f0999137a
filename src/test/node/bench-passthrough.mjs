// The non-durable MCP pass-through that `onceport bench` measures Onceport's read path against: an
// MCP server built on the official TypeScript SDK (stateless Streamable HTTP, a new server and
// transport per request, as the SDK's stateless example does) whose one tool forwards to the same
// target as the bench's read_only contract and returns the body as text. No execution identity, no
// journal, no retry decision: the floor an MCP hop costs.
//   tools/call bench_read_release {id}  →  GET <target>/v1/releases/<id>
// Usage: node bench-passthrough.mjs TARGET_BASE_URL [port]   (binds 127.0.0.1; prints
// "bench-passthrough listening on PORT"; exits when its stdin closes, so a parent that dies —
// even by kill -9 — never leaves it running)
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const target = process.argv[2];
const port = Number(process.argv[3] ?? 0);
if (!target) {
  console.error('usage: node bench-passthrough.mjs TARGET_BASE_URL [port]');
  process.exit(2);
}

const TOOL = {
  name: 'bench_read_release',
  description: 'Read one release from the target (forwarded as is, nothing recorded).',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  annotations: { readOnlyHint: true },
};

function newServer() {
  const server = new Server({ name: 'bench-passthrough', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== TOOL.name) {
      return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
    }
    const id = String(request.params.arguments?.id ?? '');
    const response = await fetch(`${target}/v1/releases/${encodeURIComponent(id)}`);
    const text = await response.text();
    return { content: [{ type: 'text', text }], isError: !response.ok };
  });
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  if (req.url !== '/mcp' || req.method !== 'POST') {
    res.writeHead(req.url === '/mcp' ? 405 : 404).end();
    return;
  }
  const server = newServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (e) {
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(e) } }));
    }
  }
});

httpServer.listen(port, '127.0.0.1', () => {
  console.log(`bench-passthrough listening on ${httpServer.address().port}`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
