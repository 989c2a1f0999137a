// The HTTP target behind the conformance contract set (src/test/resources/conformance-contracts/).
// Each fixture tool of the MCP conformance suite is a contract pointing at one route here:
//   GET  /simple-text   200 "This is a simple text response for testing."
//   POST /progress      waits PROGRESS_MS (default 1500) so the execution's states are seen, then 200
//   POST /error         500 "This tool intentionally returns an error for testing" (isError result)
//   POST /reconnection  waits RECONNECTION_MS (default 3000): longer than serve's --call-wait, so the
//                       SSE stream closes before the result and the client resumes with Last-Event-ID
//   POST /echo          200 with the JSON body it received (json_schema_2020_12_tool)
// Usage: node fixture-target.mjs [port]  (binds 127.0.0.1; prints "fixture-target listening on PORT")
import http from 'node:http';

const PROGRESS_MS = Number(process.env.PROGRESS_MS ?? 1500);
const RECONNECTION_MS = Number(process.env.RECONNECTION_MS ?? 3000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const routes = {
  'GET /simple-text': async () => [200, 'This is a simple text response for testing.'],
  'POST /progress': async () => { await sleep(PROGRESS_MS); return [200, 'Progress test completed']; },
  'POST /error': async () => [500, 'This tool intentionally returns an error for testing'],
  'POST /reconnection': async () => { await sleep(RECONNECTION_MS); return [200, 'Reconnection test completed successfully']; },
  'POST /echo': async (body) => [200, body || '{}', 'application/json'],
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
