// The HTTP target behind the conformance contract set (src/test/resources/conformance-contracts/).
// Each fixture tool of the MCP conformance suite is a contract pointing at one route here:
//   GET  /simple-text   200 "This is a simple text response for testing."
//   POST /progress      waits PROGRESS_MS (default 1500) so the execution's states are seen, then 200
//   POST /error         500 "This tool intentionally returns an error for testing" (isError result)
//   POST /reconnection  waits RECONNECTION_MS (default 3000): longer than serve's --call-wait, so the
//                       SSE stream closes before the result and the client resumes with Last-Event-ID
//   POST /echo          200 with the JSON body it received (json_schema_2020_12_tool)
//   GET  /logging       waits LOGGING_MS (default 600) so several states are logged, then 200
//   GET  /image, /audio, /embedded-resource, /mixed
//                       200 with an MCP result shape {"content": [...]} (contracts with result.format
//                       mcp_content pass the blocks through: image, audio, resource, mixed)
// Usage: node fixture-target.mjs [port]  (binds 127.0.0.1; prints "fixture-target listening on PORT")
import http from 'node:http';

const PROGRESS_MS = Number(process.env.PROGRESS_MS ?? 1500);
const RECONNECTION_MS = Number(process.env.RECONNECTION_MS ?? 3000);
const LOGGING_MS = Number(process.env.LOGGING_MS ?? 600);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A 1x1 red PNG and a minimal (header-only) WAV, base64.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
const mcp = (content) => [200, JSON.stringify({ content }), 'application/json'];
const image = { type: 'image', data: PNG, mimeType: 'image/png' };
const resource = { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } };

const routes = {
  'GET /simple-text': async () => [200, 'This is a simple text response for testing.'],
  'POST /progress': async () => { await sleep(PROGRESS_MS); return [200, 'Progress test completed']; },
  'POST /error': async () => [500, 'This tool intentionally returns an error for testing'],
  'POST /reconnection': async () => { await sleep(RECONNECTION_MS); return [200, 'Reconnection test completed successfully']; },
  'POST /echo': async (body) => [200, body || '{}', 'application/json'],
  'GET /logging': async () => { await sleep(LOGGING_MS); return [200, 'Logging test completed']; },
  'GET /image': async () => mcp([image]),
  'GET /audio': async () => mcp([{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]),
  'GET /embedded-resource': async () => mcp([resource]),
  'GET /mixed': async () => mcp([{ type: 'text', text: 'Multiple content types test:' }, image, resource]),
};

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', async () => {
    const route = routes[`${req.method} ${req.url.split('?')[0]}`];
    const [status, text, type] = route ? await route(body) : [404, `no route ${req.method} ${req.url}`];
    res.writeHead(status, { 'Content-Type': type ?? 'text/plain; charset=utf-8' });
    res.end(text);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`fixture-target listening on ${server.address().port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
