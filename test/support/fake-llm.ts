/**
 * Fake model servers on loopback that speak the vendors' exact wire formats, for the tool-use loop's
 * tests: Anthropic Messages (`POST /v1/messages`, `x-api-key`, `anthropic-version: 2023-06-01`,
 * `text` / `tool_use` content blocks, `stop_reason`, `usage.input_tokens/output_tokens`, errors
 * `{type:"error", error:{type, message}}`) and OpenAI chat completions (`POST /v1/chat/completions`,
 * `Authorization: Bearer`, `tools`, `tool_choice`, `choices[0].message.tool_calls`, `finish_reason`,
 * `usage.prompt_tokens/completion_tokens`, errors `{error:{message, type, code}}`).
 *
 * Each test scripts the replies in order and reads back every request as received. Requests are also
 * checked against the wire rules a real server enforces (auth, version header, roles in turn, every
 * tool call answered, tool names, tool_choice naming an offered tool); a violation is answered with
 * the vendor's 400 or 401 and listed in `violations`, so a test can assert there were none.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- request bodies are untyped wire JSON, walked loosely and checked at run time */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

export type Dialect = 'anthropic' | 'openai';

/** One request as the fake received it. `body` is the parsed JSON (undefined when it was not JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  /** Size of the request body as it arrived, bytes. */
  bodyBytes: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, instead of `body` (a malformed answer). */
  raw?: string;
  /** Never answer; the connection stays open until the client gives up or the fake closes. */
  hang?: boolean;
}

export type Script = Reply | ((req: RecordedRequest) => Reply);

/** A request's content in one shape for both dialects, for assertions. */
export interface RequestView {
  model: string;
  system: string;
  toolNames: string[];
  /** `auto`, or the name of the tool the request forces. */
  toolChoice: string;
  maxTokens: number;
  temperature: number;
  /** The first user message's text (the event). */
  eventText: string;
  /** Tool results of the last turn: the call id, its text and whether it is an error. */
  toolResults: Array<{ id: string; text: string; isError: boolean }>;
  /** svc's note after the last tool results or answer, if any. */
  note: string | null;
  /** Number of messages, system excluded. */
  turns: number;
}

export interface FakeLlm {
  readonly dialect: Dialect;
  /** What agent.yaml's `baseUrl` should say. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly requests: RecordedRequest[];
  readonly violations: string[];
  /** Queues replies: each request takes the next one; with the queue empty it gets a 500 saying so. */
  reply(...scripts: Script[]): void;
  /** The reply to every request while the queue is empty (benchmarks: an endless conversation). */
  always(script: Script): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  /** The request's content in one shape for both dialects; throws when there is no such request. */
  view(req: RecordedRequest | undefined): RequestView;
  // Replies in this fake's dialect.
  toolCall(name: string, input: unknown, opts?: { id?: string; text?: string; usage?: [number, number] }): Reply;
  toolCalls(calls: Array<{ name: string; input: unknown; id?: string }>, opts?: { usage?: [number, number] }): Reply;
  /** A plain answer; `stop` `max-tokens` is a cut-off, `refusal` a refusal. */
  text(text: string, opts?: { stop?: 'end' | 'max-tokens' | 'refusal'; usage?: [number, number] }): Reply;
  /** An error in the vendor's shape (type from the status unless given). */
  error(status: number, opts?: { type?: string; message?: string; headers?: Record<string, string> }): Reply;
  hang(): Reply;
  close(): Promise<void>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error',
};
const OPENAI_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'invalid_request_error', 404: 'invalid_request_error', 429: 'requests',
  500: 'server_error', 503: 'server_error',
};

let counter = 0;
const nextId = (prefix: string): string => `${prefix}${(++counter).toString().padStart(4, '0')}${randomBytes(6).toString('hex')}`;

export async function startFakeLlm(dialect: Dialect, opts: { apiKey?: string; model?: string; port?: number;
  /** false: keep no requests (a long benchmark); violations are still listed. */
  record?: boolean; } = {}): Promise<FakeLlm> {
  const apiKey = opts.apiKey ?? `sk-${dialect === 'anthropic' ? 'ant-' : 'proj-'}test-${randomBytes(12).toString('hex')}`;
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const queue: Script[] = [];
  let always: Script | null = null;
  let seen = 0;
  const hanging = new Set<ServerResponse>();

  const errorBody = (status: number, type: string | undefined, message: string): unknown => dialect === 'anthropic'
    ? { type: 'error', error: { type: type ?? ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message } }
    : { error: { message, type: type ?? OPENAI_ERROR_TYPES[status] ?? 'server_error', param: null, code: null } };

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const text = bytes.toString('utf8');
    let body: unknown;
    try { body = JSON.parse(text); } catch { body = undefined; }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers, body, bodyBytes: bytes.length };
    seen += 1;
    if (opts.record !== false) requests.push(recorded);

    const refuse = (status: number, message: string): void => {
      violations.push(`request ${seen}: ${message}`);
      send(res, { status, body: errorBody(status, undefined, message) });
    };
    const problem = dialect === 'anthropic' ? anthropicProblem(recorded, apiKey) : openaiProblem(recorded, apiKey);
    if (problem) {
      refuse(problem.status, problem.status === 401 && dialect === 'openai'
        // Like OpenAI, the message names the key it got: the client must never pass this text on as it is.
        ? `Incorrect API key provided: ${(headers.authorization ?? '').replace(/^Bearer /, '')}` : problem.message);
      return;
    }
    const script = queue.shift() ?? always;
    if (!script) {
      refuse(500, 'fake-llm: no scripted reply left');
      return;
    }
    const reply = typeof script === 'function' ? script(recorded) : script;
    if (reply.hang) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    send(res, reply);
  }

  function send(res: ServerResponse, reply: Reply): void {
    const payload = reply.raw ?? JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
    res.end(payload);
  }

  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const model = opts.model ?? (dialect === 'anthropic' ? 'claude-haiku-4-5' : 'gpt-4o-mini');
  const usageOf = (u?: [number, number]): [number, number] => u ?? [120 + seen, 30];

  const anthropicAnswer = (content: unknown[], stop: string, usage: [number, number]): Reply => ({ status: 200, body: {
    id: nextId('msg_'), type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null,
    usage: { input_tokens: usage[0], output_tokens: usage[1] },
  } });
  const openaiAnswer = (message: Record<string, unknown>, finish: string, usage: [number, number]): Reply => ({ status: 200, body: {
    id: nextId('chatcmpl-'), object: 'chat.completion', created: 1_767_225_600, model,
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] },
  } });

  const fake: FakeLlm = {
    dialect,
    baseUrl: dialect === 'anthropic' ? origin : `${origin}/v1`,
    apiKey,
    requests,
    violations,
    reply: (...scripts) => { queue.push(...scripts); },
    always: (script) => { always = script; },
    waitForRequests: async (n, timeoutMs = 20_000) => { await waitFor(`${n} request(s) at the fake ${dialect} server`, () => requests.length >= n, timeoutMs); },
    view(req) {
      if (!req) throw new Error(`no such request (the fake ${dialect} server has ${requests.length})`);
      return dialect === 'anthropic' ? anthropicView(req) : openaiView(req);
    },
    toolCall: (name, input, o = {}) => fake.toolCalls([{ name, input, ...(o.id ? { id: o.id } : {}) }], o.usage ? { usage: o.usage } : {}),
    toolCalls(calls, o = {}) {
      const usage = usageOf(o.usage);
      if (dialect === 'anthropic') {
        return anthropicAnswer(calls.map((c) => ({ type: 'tool_use', id: c.id ?? nextId('toolu_'), name: c.name, input: c.input })), 'tool_use', usage);
      }
      return openaiAnswer({ tool_calls: calls.map((c) => ({ id: c.id ?? nextId('call_'), type: 'function',
        function: { name: c.name, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) } })) }, 'tool_calls', usage);
    },
    text(t, o = {}) {
      const usage = usageOf(o.usage);
      const stop = o.stop ?? 'end';
      if (dialect === 'anthropic') {
        return anthropicAnswer(t === '' ? [] : [{ type: 'text', text: t }], { end: 'end_turn', 'max-tokens': 'max_tokens', refusal: 'refusal' }[stop], usage);
      }
      if (stop === 'refusal') return openaiAnswer({ refusal: t }, 'stop', usage);
      return openaiAnswer({ content: t }, stop === 'end' ? 'stop' : 'length', usage);
    },
    error: (status, o = {}) => ({ status, headers: o.headers ?? {}, body: errorBody(status, o.type, o.message ?? `fake ${status}`) }),
    hang: () => ({ status: 0, hang: true }),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

// ---------------------------------------------------------------------------------------------------
// Wire rules each vendor enforces (a subset: what a client of the tool-use loop can get wrong)
// ---------------------------------------------------------------------------------------------------

type Problem = { status: number; message: string } | null;
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function anthropicProblem(req: RecordedRequest, apiKey: string): Problem {
  if (req.method !== 'POST' || req.path !== '/v1/messages') return { status: 404, message: `no route ${req.method} ${req.path}` };
  if (req.headers['x-api-key'] !== apiKey) return { status: 401, message: 'invalid x-api-key' };
  if (req.headers['anthropic-version'] !== '2023-06-01') return { status: 400, message: 'anthropic-version header must be 2023-06-01' };
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return { status: 400, message: 'content-type must be application/json' };
  const b = req.body;
  if (!isObj(b)) return { status: 400, message: 'body is not a JSON object' };
  if (typeof b.model !== 'string' || !Number.isInteger(b.max_tokens) || b.max_tokens < 1) return { status: 400, message: 'model and max_tokens are required' };
  if (b.system !== undefined && typeof b.system !== 'string') return { status: 400, message: 'system must be a string' };
  const tools: any[] = Array.isArray(b.tools) ? b.tools : [];
  for (const t of tools) {
    if (!isObj(t) || !TOOL_NAME.test(String(t.name)) || !isObj(t.input_schema) || t.input_schema.type !== 'object') return { status: 400, message: 'tools: bad tool' };
  }
  if (b.tool_choice !== undefined) {
    const c = b.tool_choice;
    if (!isObj(c) || !['auto', 'any', 'tool', 'none'].includes(c.type)) return { status: 400, message: 'tool_choice: bad type' };
    if (c.type === 'tool' && !tools.some((t) => t.name === c.name)) return { status: 400, message: 'tool_choice names a tool not offered' };
  }
  if (!Array.isArray(b.messages) || b.messages.length === 0) return { status: 400, message: 'messages: at least one message is required' };
  let pendingToolUse: string[] = [];
  for (const [i, m] of b.messages.entries()) {
    const want = i % 2 === 0 ? 'user' : 'assistant';
    if (!isObj(m) || m.role !== want) return { status: 400, message: `messages.${i}: roles must alternate, starting with user` };
    const blocks: any[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    if (blocks.length === 0) return { status: 400, message: `messages.${i}: content must not be empty` };
    if (m.role === 'user') {
      const results = blocks.filter((x) => x.type === 'tool_result').map((x) => String(x.tool_use_id));
      if (pendingToolUse.some((id) => !results.includes(id)) || results.some((id) => !pendingToolUse.includes(id))) {
        return { status: 400, message: `messages.${i}: tool_use ids must each be answered by one tool_result` };
      }
      const firstText = blocks.findIndex((x) => x.type !== 'tool_result');
      if (firstText >= 0 && blocks.slice(firstText).some((x) => x.type === 'tool_result')) {
        return { status: 400, message: `messages.${i}: tool_result blocks must come first` };
      }
      pendingToolUse = [];
    } else {
      pendingToolUse = blocks.filter((x) => x.type === 'tool_use').map((x) => String(x.id));
      if (blocks.some((x) => x.type === 'text' && (typeof x.text !== 'string' || x.text === ''))) return { status: 400, message: `messages.${i}: text blocks must be non-empty` };
    }
  }
  return null;
}

function openaiProblem(req: RecordedRequest, apiKey: string): Problem {
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return { status: 404, message: `no route ${req.method} ${req.path}` };
  if (req.headers.authorization !== `Bearer ${apiKey}`) return { status: 401, message: 'invalid api key' };
  const b = req.body;
  if (!isObj(b) || typeof b.model !== 'string' || !Array.isArray(b.messages)) return { status: 400, message: 'model and messages are required' };
  const tools: any[] = Array.isArray(b.tools) ? b.tools : [];
  for (const t of tools) {
    if (!isObj(t) || t.type !== 'function' || !isObj(t.function) || !TOOL_NAME.test(String(t.function.name)) || !isObj(t.function.parameters)) {
      return { status: 400, message: 'tools: bad tool' };
    }
  }
  const c = b.tool_choice;
  if (c !== undefined && !['auto', 'none', 'required'].includes(c)) {
    if (!isObj(c) || c.type !== 'function' || !tools.some((t) => t.function.name === c.function?.name)) return { status: 400, message: 'tool_choice names a tool not offered' };
  }
  let pending: string[] = [];
  for (const [i, m] of b.messages.entries()) {
    if (!isObj(m) || !['system', 'user', 'assistant', 'tool'].includes(m.role)) return { status: 400, message: `messages.${i}: bad role` };
    if (m.role === 'tool') {
      if (!pending.includes(m.tool_call_id)) return { status: 400, message: `messages.${i}: tool message answers no pending tool call` };
      pending = pending.filter((id) => id !== m.tool_call_id);
      continue;
    }
    if (pending.length > 0) return { status: 400, message: `messages.${i}: tool_calls ${pending.join(',')} were not answered` };
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      pending = m.tool_calls.map((t: any) => String(t.id));
      if (m.tool_calls.some((t: any) => t.type !== 'function' || typeof t.function?.arguments !== 'string')) return { status: 400, message: `messages.${i}: bad tool_calls` };
    } else if (typeof m.content !== 'string' || m.content === '') {
      return { status: 400, message: `messages.${i}: content must be a non-empty string` };
    }
  }
  if (pending.length > 0) return { status: 400, message: 'the last tool_calls were not answered' };
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------------------

function anthropicView(req: RecordedRequest): RequestView {
  const b: Record<string, any> = req.body;
  const messages = b.messages as any[];
  const last = messages[messages.length - 1];
  const blocks: any[] = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
  const first = messages[0];
  return {
    model: b.model,
    system: b.system ?? '',
    toolNames: (b.tools ?? []).map((t: any) => t.name),
    toolChoice: b.tool_choice?.type === 'tool' ? b.tool_choice.name : b.tool_choice?.type ?? 'auto',
    maxTokens: b.max_tokens,
    temperature: b.temperature,
    eventText: typeof first.content === 'string' ? first.content : first.content.map((x: any) => x.text ?? '').join(''),
    toolResults: blocks.filter((x) => x.type === 'tool_result').map((x) => ({ id: x.tool_use_id, text: String(x.content), isError: x.is_error === true })),
    note: messages.length > 1 ? (blocks.filter((x) => x.type === 'text').map((x) => x.text).join('\n') || null) : null,
    turns: messages.length,
  };
}

function openaiView(req: RecordedRequest): RequestView {
  const b: Record<string, any> = req.body;
  const messages = (b.messages as any[]).filter((m) => m.role !== 'system');
  const tail: any[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role !== 'assistant'; i--) tail.unshift(messages[i]);
  const note = messages.length > 1 ? tail.filter((m) => m.role === 'user').map((m) => m.content).join('\n') || null : null;
  return {
    model: b.model,
    system: (b.messages as any[]).find((m) => m.role === 'system')?.content ?? '',
    toolNames: (b.tools ?? []).map((t: any) => t.function.name),
    toolChoice: typeof b.tool_choice === 'string' ? b.tool_choice : b.tool_choice?.function?.name ?? 'auto',
    maxTokens: b.max_tokens,
    temperature: b.temperature,
    eventText: messages[0]?.content ?? '',
    toolResults: tail.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, text: String(m.content).replace(/^Error: /, ''),
      isError: String(m.content).startsWith('Error: ') })),
    note,
    turns: messages.length,
  };
}
