// An upstream MCP server over Streamable HTTP, built with the official TypeScript SDK (pinned in
// package-lock.json), for the tests of Onceport's `mcp` channel and `contracts import-mcp`.
// Its tools have side effects, and every tools/call it receives is recorded in a ledger — repeated
// idempotency keys included — so a test can count what really happened.
//
//   node upstream-http.mjs [--port N] [--no-idempotency] [--require-token-env VAR] [--resumable]
//     prints "upstream-http listening on PORT" once ready (binds 127.0.0.1); with --require-token-env,
//     /mcp answers 401 unless Authorization is "Bearer " + the value of that environment variable;
//     with --resumable, response streams carry event ids (the SDK's InMemoryEventStore) and a broken
//     one can be resumed with GET + Last-Event-ID
//
// Tools: create_ticket {title, priority}  side effect; idempotentHint; honours params.idempotencyKey
//                                          (SEP-3182) unless --no-idempotency: a repeated key with the
//                                          same arguments gets the first result and does nothing
//        list_tickets {}                  readOnlyHint
//        send_email {to, subject}         side effect, destructiveHint, never deduplicated
//        ticket_status {key}              readOnlyHint: structuredContent.state created | not_found for
//                                          the ticket made under that idempotency key
// Control (plain HTTP, not MCP):
//   GET  /ledger                          every tools/call received, in order
//   POST /admin/faults {"next":F,"count":N}  F = delay=MS (answer MS later, after acting) |
//                                          cut-after-call (act, then drop the connection unanswered) |
//                                          list-changed (send notifications/tools/list_changed on the
//                                          call's response stream, then answer) | echo-auth (send_email
//                                          quotes the Authorization header it received in its answer)
//   POST /admin/change-tools              change create_ticket's schema, add a tool, and send
//                                          notifications/tools/list_changed to every session
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import {
  CallToolRequestSchema, CallToolRequestParamsSchema, ListToolsRequestSchema, McpError, ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const port = argv.includes('--port') ? Number(argv[argv.indexOf('--port') + 1]) : 0;
const idempotency = !argv.includes('--no-idempotency');
const resumable = argv.includes('--resumable');
const requiredToken = argv.includes('--require-token-env') ? process.env[argv[argv.indexOf('--require-token-env') + 1]] : null;

const ledger = [];
const tickets = [];
const byKey = new Map(); // idempotencyKey -> { args, promise }
let faults = { next: null, count: 0 };
let changed = false;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function toolList() {
  const tools = [
    {
      name: 'create_ticket',
      title: 'Create a ticket',
      description: 'Open a ticket in the tracker. Creates one ticket per call.',
      inputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, priority: { type: 'string', enum: ['low', 'high'], default: 'low' } },
        required: changed ? ['title', 'team'] : ['title'],
        ...(changed ? {} : { additionalProperties: false }),
      },
      outputSchema: {
        type: 'object',
        properties: { ticket_id: { type: 'string' }, title: { type: 'string' } },
        required: ['ticket_id', 'title'],
      },
      annotations: { idempotentHint: true, destructiveHint: false },
    },
    {
      name: 'list_tickets',
      description: 'List the tickets.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'send_email',
      description: 'Send an email. Every call sends one.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#', // as zod-generated schemas carry it
        type: 'object',
        properties: { to: { type: 'string', 'x-audit': 'recipient' }, subject: { type: 'string' } },
        required: ['to', 'subject'],
      },
      annotations: { destructiveHint: true },
    },
    {
      name: 'ticket_status',
      description: 'Whether a ticket was created under an idempotency key.',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      annotations: { readOnlyHint: true },
    },
  ];
  if (changed) {
    tools.push({ name: 'close_ticket', description: 'Close a ticket.', inputSchema: { type: 'object', properties: {} } });
  }
  return tools;
}

const text = (t) => [{ type: 'text', text: t }];

async function act(name, args, extra, key) {
  const fault = faults.count > 0 ? faults.next : null;
  if (fault && ['create_ticket', 'send_email'].includes(name)) {
    faults.count -= 1;
  }
  let result;
  if (name === 'create_ticket') {
    const ticket = { ticket_id: `T-${tickets.length + 1}`, title: args.title, key: key ?? null };
    tickets.push(ticket);
    result = { content: text(`created ${ticket.ticket_id}: ${args.title}`), structuredContent: { ticket_id: ticket.ticket_id, title: args.title } };
  } else if (name === 'send_email') {
    const echo = fault === 'echo-auth' ? ` (authorization: ${extra.requestInfo?.headers?.authorization})` : '';
    result = { content: text(`sent "${args.subject}" to ${args.to}${echo}`) };
  } else {
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  if (fault === 'list-changed') {
    // announced on this request's response stream, before the answer
    await extra.sendNotification({ method: 'notifications/tools/list_changed' });
  } else if (fault?.startsWith('delay=')) {
    await sleep(Number(fault.slice(6)));
  } else if (fault === 'cut-after-call') {
    // The action is done (and kept for its idempotency key); only this answer is lost with the connection.
    if (resumable) await sleep(300); // let the stream's priming event (its first event id) reach the client
    responses.get(`${extra.sessionId}|${extra.requestId}`)?.socket?.destroy();
  }
  return result;
}

function newServer() {
  const server = new Server(
    { name: 'ticket-server', version: '1.4.0' },
    { capabilities: { tools: { listChanged: true, ...(idempotency ? { idempotency: {} } : {}) } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));
  const CallWithKey = CallToolRequestSchema.extend({
    params: CallToolRequestParamsSchema.extend({ idempotencyKey: z.string().optional() }),
  });
  server.setRequestHandler(CallWithKey, async (request, extra) => {
    const { name, arguments: args = {}, idempotencyKey, _meta } = request.params;
    const entry = {
      seq: ledger.length + 1, tool: name, arguments: args, idempotencyKey: idempotencyKey ?? null,
      executionId: _meta?.['onceport/execution_id'] ?? null, session: extra.sessionId ?? null, replayed: false,
    };
    ledger.push(entry);
    if (name === 'list_tickets') {
      return { content: text(JSON.stringify(tickets)), structuredContent: { tickets } };
    }
    if (name === 'ticket_status') {
      const t = tickets.find((x) => x.key === args.key);
      return { content: text(t ? `created ${t.ticket_id}` : 'not found'), structuredContent: { state: t ? 'created' : 'not_found' } };
    }
    if (name === 'create_ticket' && idempotency && idempotencyKey) {
      const seen = byKey.get(idempotencyKey);
      if (seen) {
        if (seen.args !== JSON.stringify(args)) {
          throw new McpError(ErrorCode.InvalidParams, `idempotencyKey ${idempotencyKey} was used with other arguments`);
        }
        entry.replayed = true;
        return await seen.promise;
      }
      const promise = act(name, args, extra, idempotencyKey);
      byKey.set(idempotencyKey, { args: JSON.stringify(args), promise });
      return await promise;
    }
    return await act(name, args, extra, idempotencyKey);
  });
  return server;
}

const sessions = new Map(); // session id -> { server, transport }
const responses = new Map(); // "session|jsonrpc id" -> node response, for cut-after-call

function readBody(req) {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => resolve(body));
  });
}

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const httpServer = http.createServer(async (req, res) => {
  const path = req.url.split('?')[0];
  if (path === '/ledger' && req.method === 'GET') {
    return send(res, 200, ledger);
  }
  if (path === '/admin/faults' && req.method === 'POST') {
    faults = JSON.parse((await readBody(req)) || '{}');
    return send(res, 200, faults);
  }
  if (path === '/admin/change-tools' && req.method === 'POST') {
    changed = true;
    await Promise.all([...sessions.values()].map((s) => s.server.sendToolListChanged().catch(() => {})));
    return send(res, 200, { changed: true });
  }
  if (path !== '/mcp') {
    return send(res, 404, { error: `no route ${req.method} ${path}` });
  }
  if (requiredToken && req.headers.authorization !== `Bearer ${requiredToken}`) {
    return send(res, 401, { error: 'unauthorized' });
  }
  const raw = req.method === 'POST' ? await readBody(req) : undefined;
  let body;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  const sid = req.headers['mcp-session-id'];
  let entry = sid ? sessions.get(sid) : undefined;
  if (!entry) {
    if (sid || body?.method !== 'initialize') {
      return send(res, 404, { jsonrpc: '2.0', id: body?.id ?? null, error: { code: -32001, message: 'Session not found' } });
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...(resumable ? { eventStore: new InMemoryEventStore() } : {}),
      onsessioninitialized: (id) => sessions.set(id, { server, transport }),
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await server.connect(transport);
    entry = { server, transport };
  }
  const key = body && body.id !== undefined ? `${sid}|${body.id}` : null;
  if (key) {
    responses.set(key, res);
    res.on('close', () => responses.delete(key));
  }
  await entry.transport.handleRequest(req, res, body);
});

httpServer.listen(port, '127.0.0.1', () => {
  console.log(`upstream-http listening on ${httpServer.address().port}`);
});
const stop = () => { httpServer.closeAllConnections?.(); httpServer.close(() => process.exit(0)); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
