// An upstream MCP server over stdio, built with the official TypeScript SDK (pinned in
// package-lock.json), for the tests of Onceport's `mcp` channel: the worker starts it and
// supervises it. It does NOT advertise tools.idempotency and ignores idempotencyKey.
//
//   LEDGER_FILE=... NOTES_FILE=... [FAULTS_FILE=...] node upstream-stdio.mjs
//
// Tools: append_note {text}   side effect: appends a line to NOTES_FILE (no annotations)
//        note_status {key}    readOnlyHint: structuredContent.state written | not_found for the note
//                             appended under _meta onceport/execution_id = key
//        read_notes {}        readOnlyHint
// Every tools/call received is appended to LEDGER_FILE as one JSON line (pid, tool, arguments,
// idempotencyKey, executionId) before anything else happens. FAULTS_FILE, read and emptied on each
// append_note: "die-after-call" appends the note, then exits (status 3) without answering;
// "delay=MS" answers MS later; "list-changed" sends notifications/tools/list_changed, then answers.
import fs from 'node:fs';
import * as z from 'zod/v4';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolRequestParamsSchema, ListToolsRequestSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

const { LEDGER_FILE, NOTES_FILE, FAULTS_FILE } = process.env;
if (!LEDGER_FILE || !NOTES_FILE) {
  process.stderr.write('upstream-stdio: LEDGER_FILE and NOTES_FILE are required\n');
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => [{ type: 'text', text: t }];
const notes = () => (fs.existsSync(NOTES_FILE) ? fs.readFileSync(NOTES_FILE, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

function takeFault() {
  if (!FAULTS_FILE || !fs.existsSync(FAULTS_FILE)) return null;
  const f = fs.readFileSync(FAULTS_FILE, 'utf8').trim();
  fs.writeFileSync(FAULTS_FILE, '');
  return f || null;
}

const server = new Server({ name: 'notes-server', version: '0.3.0' }, { capabilities: { tools: { listChanged: false } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'append_note',
      description: 'Append a note to the notebook.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    {
      name: 'note_status',
      description: 'Whether the note of an execution was written.',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'read_notes',
      description: 'Read every note.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
  ],
}));
const CallWithKey = CallToolRequestSchema.extend({
  params: CallToolRequestParamsSchema.extend({ idempotencyKey: z.string().optional() }),
});
server.setRequestHandler(CallWithKey, async (request) => {
  const { name, arguments: args = {}, idempotencyKey, _meta } = request.params;
  const executionId = _meta?.['onceport/execution_id'] ?? null;
  fs.appendFileSync(LEDGER_FILE, JSON.stringify({ pid: process.pid, tool: name, arguments: args, idempotencyKey: idempotencyKey ?? null, executionId }) + '\n');
  if (name === 'append_note') {
    const fault = takeFault();
    fs.appendFileSync(NOTES_FILE, JSON.stringify({ text: args.text, executionId }) + '\n');
    if (fault === 'die-after-call') {
      process.exit(3);
    }
    if (fault?.startsWith('delay=')) {
      await sleep(Number(fault.slice(6)));
    }
    if (fault === 'list-changed') {
      await server.sendToolListChanged();
    }
    return { content: text(`noted: ${args.text}`) };
  }
  if (name === 'note_status') {
    const found = notes().some((n) => n.executionId === args.key);
    return { content: text(found ? 'written' : 'not found'), structuredContent: { state: found ? 'written' : 'not_found' } };
  }
  if (name === 'read_notes') {
    const all = notes();
    return { content: text(all.map((n) => n.text).join('\n')), structuredContent: { notes: all.map((n) => n.text) } };
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
});

await server.connect(new StdioServerTransport());
