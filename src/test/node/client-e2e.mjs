// A real MCP client (the official TypeScript SDK, pinned in package-lock.json) against Onceport, for
// io.onceport.e2e.SdkClientEndToEndTest. One step per process, so the test can SIGKILL a client
// mid-call and continue in a NEW process. Every observation is one JSON line on stdout.
//
//   node client-e2e.mjs URL TOKEN call SERVICE               list tools, create_release with progress
//   node client-e2e.mjs URL TOKEN start SERVICE              prints the session, then every resumption
//                                                            token; the test kills the process
//   node client-e2e.mjs URL TOKEN resume SESSION TOKEN       same session, Last-Event-ID = TOKEN:
//                                                            prints the original call's result
//   node client-e2e.mjs URL TOKEN task-start SERVICE         tools/call with params.task: prints the
//                                                            session and the task, then polls until killed
//   node client-e2e.mjs URL TOKEN task-resume SESSION TASKID tasks/get, then tasks/result
//   node client-e2e.mjs URL TOKEN timeout-retry SERVICE MS   create_release with the SDK's own `timeout`
//                                                            option; prints the error, waits for a line
//                                                            "retry" on stdin, retries the same call
//   node client-e2e.mjs URL TOKEN abort-retry SERVICE MS     the same with an AbortSignal aborted after MS
//   node client-e2e.mjs URL TOKEN pair SERVICE MS            two clients (two sessions) make the same call,
//                                                            the second MS after the first; prints both results
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, token, mode, ...args] = process.argv.slice(2);
const out = (event, data) => process.stdout.write(JSON.stringify({ event, ...data }) + '\n');
const fail = (e) => { out('error', { message: String(e?.stack ?? e) }); process.exit(2); };
setTimeout(() => fail(new Error('client-e2e: no result within 60 s')), 60_000).unref();

async function connect(sessionId) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    sessionId, // set: the SDK skips initialize and continues that session
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'onceport-sdk-e2e', version: '1.0.0' });
  client.onerror = (e) => out('client-error', { message: String(e?.message ?? e) });
  await client.connect(transport);
  return { client, transport };
}

const release = (service) => ({ name: 'create_release', arguments: { service, version: '1.0.0' } });

// Lines the test writes to this process's stdin, in order (read only by the modes that wait for one).
const stdinLines = [];
let stdinWaiter = null;
let stdinBuffer = '';
let stdinOpen = false;
const nextLine = async () => {
  if (!stdinOpen) {
    stdinOpen = true;
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      stdinBuffer += chunk;
      for (let i; (i = stdinBuffer.indexOf('\n')) >= 0;) {
        stdinLines.push(stdinBuffer.slice(0, i).trim());
        stdinBuffer = stdinBuffer.slice(i + 1);
      }
      if (stdinWaiter && stdinLines.length) { const w = stdinWaiter; stdinWaiter = null; w(); }
    });
  }
  while (!stdinLines.length) { await new Promise((r) => { stdinWaiter = r; }); }
  return stdinLines.shift();
};
const describe = (e) => ({ name: e?.name, code: e?.code, message: String(e?.message ?? e) });

try {
  if (mode === 'call') {
    const { client } = await connect();
    const tools = await client.listTools();
    out('tools', { names: tools.tools.map((t) => t.name) });
    const result = await client.callTool(release(args[0]), CallToolResultSchema, {
      onprogress: (p) => out('progress', { progress: p.progress, message: p.message }),
    });
    out('result', { result });
    await client.close();
  } else if (mode === 'start') {
    const { client, transport } = await connect();
    out('session', { id: transport.sessionId, protocolVersion: transport.protocolVersion });
    await client.request({ method: 'tools/call', params: release(args[0]) }, CallToolResultSchema, {
      onresumptiontoken: (t) => out('token', { token: t }),
    });
    out('result-in-first-process', {}); // the test kills this process before this line
  } else if (mode === 'resume') {
    const [sessionId, resumptionToken] = args;
    const { client } = await connect(sessionId);
    const result = await client.request({ method: 'tools/call', params: release('ignored-on-resume') },
      CallToolResultSchema, { resumptionToken, onresumptiontoken: (t) => out('token', { token: t }) });
    out('result', { result });
    process.exit(0); // keep the session: no DELETE
  } else if (mode === 'task-start') {
    const { client, transport } = await connect();
    out('session', { id: transport.sessionId });
    const created = await client.request(
      { method: 'tools/call', params: { ...release(args[0]), task: { ttl: 600_000 } } }, CreateTaskResultSchema);
    out('task', { task: created.task });
    for (;;) { // poll like an agent would, until the test kills this process
      const t = await client.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, GetTaskResultSchema);
      out('task-status', { status: t.status, statusMessage: t.statusMessage });
      await new Promise((r) => setTimeout(r, 200));
    }
  } else if (mode === 'task-resume') {
    const [sessionId, taskId] = args;
    const { client } = await connect(sessionId);
    const t = await client.experimental.tasks.getTask(taskId);
    out('task-status', { status: t.status, statusMessage: t.statusMessage });
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    out('result', { result });
    process.exit(0);
  } else if (mode === 'timeout-retry' || mode === 'abort-retry') {
    const [service, ms] = args;
    const { client } = await connect();
    const started = Date.now();
    try {
      const options = mode === 'timeout-retry'
        ? { timeout: Number(ms) }
        : { signal: AbortSignal.timeout(Number(ms)) };
      const early = await client.callTool(release(service), CallToolResultSchema, options);
      out('unexpected-result', { result: early });
    } catch (e) {
      out('gave-up', { ...describe(e), afterMs: Date.now() - started, at: Date.now() });
    }
    if ((await nextLine()) !== 'retry') fail(new Error('expected "retry" on stdin'));
    const result = await client.callTool(release(service), CallToolResultSchema, { timeout: 60_000 });
    out('result', { result });
    process.exit(0);
  } else if (mode === 'pair') {
    const [service, ms] = args;
    const a = await connect();
    const b = await connect();
    const first = a.client.callTool(release(service), CallToolResultSchema, { timeout: 60_000 });
    await new Promise((r) => setTimeout(r, Number(ms)));
    out('second-sent', {});
    const second = b.client.callTool(release(service), CallToolResultSchema, { timeout: 60_000 });
    out('result', { which: 'first', result: await first });
    out('result', { which: 'second', result: await second });
    process.exit(0);
  } else {
    fail(new Error(`unknown mode ${mode}`));
  }
} catch (e) {
  fail(e);
}
