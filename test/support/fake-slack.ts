/**
 * A Slack Web API stand-in on loopback, the one every Slack test uses: `conversations.open` opens a DM,
 * `chat.postMessage` and `chat.update` answer as Slack does (`{ok, channel, ts, …}`, JSON with a
 * charset); a request without the expected bot token gets Slack's `not_authed`. Every API call is
 * recorded with its parsed JSON body and its bytes. It also receives interactivity's `response_url`
 * posts at `/response`. Scripted answers (`postReplies`), a rate-limited first update and shared
 * channels the bot was not invited to (`not_in_channel`, as Slack answers a bot posting there) let a
 * test walk Slack's failures; `holdOpen` makes conversations.open a slow first call.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  auth: string | undefined;
  contentType: string | undefined;
  body: Record<string, unknown>;
  /** the request body's bytes as text */
  raw: string;
  /** what the stand-in answered */
  reply: SlackReply;
}

/** An answer to one call: the HTTP status, extra headers, the JSON body. */
export interface SlackReply { status: number; headers?: Record<string, string>; body: Record<string, unknown> }

export interface FakeSlackOptions {
  /** The DM channel conversations.open returns (default `D0ONCALL`). */
  dmChannel?: string;
  /** The first chat.update is answered 429 `ratelimited` with `Retry-After: 1`, as Slack's rate limit does. */
  rateLimitFirstUpdate?: boolean;
  /**
   * The shared conversations (`C…`, `G…`) the bot is a member of: a post into another is answered
   * `not_in_channel`. Absent: the bot is in every one.
   */
  memberOf?: readonly string[];
}

export interface FakeSlack {
  /** What channels.yaml's `apiUrl` should say (`<base>/api`). */
  readonly apiUrl: string;
  /** The server's root: `<base>/response` is a response_url. */
  readonly base: string;
  readonly calls: SlackCall[];
  /** The DM channel id conversations.open returns. */
  readonly dmChannel: string;
  /** Answers chat.postMessage takes, in order, before the usual `ok` (push to script a failure). */
  readonly postReplies: SlackReply[];
  /** The JSON bodies posted to `<base>/response`. */
  readonly responses: Array<Record<string, unknown>>;
  /** While set, conversations.open is answered only once it settles (a slow first call). */
  holdOpen: Promise<void> | null;
  /** conversations.open calls waiting for `holdOpen` now. */
  readonly opensWaiting: number;
  close(): Promise<void>;
}

export async function startFakeSlack(token: string, opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const postReplies: SlackReply[] = [];
  const responses: Array<Record<string, unknown>> = [];
  const dmChannel = opts.dmChannel ?? 'D0ONCALL';
  let updates = 0;
  let opensWaiting = 0;
  const state: { holdOpen: Promise<void> | null } = { holdOpen: null };
  const answer = (method: string, auth: string | undefined, body: Record<string, unknown>): SlackReply => {
    const ok = (reply: Record<string, unknown>): SlackReply => ({ status: 200, body: { ok: true, ...reply } });
    if (auth !== `Bearer ${token}`) return { status: 200, body: { ok: false, error: 'not_authed' } };
    if (method === 'conversations.open') return ok({ channel: { id: dmChannel } });
    if (method === 'chat.postMessage') {
      const shared = typeof body.channel === 'string' && /^[CG]/.test(body.channel);
      if (shared && opts.memberOf !== undefined && !opts.memberOf.includes(body.channel as string)) return { status: 200, body: { ok: false, error: 'not_in_channel' } };
      return postReplies.shift() ?? ok({ channel: body.channel, ts: `1700000000.${String(calls.length + 1).padStart(6, '0')}`, message: { text: body.text } });
    }
    if (method === 'chat.update') {
      updates += 1;
      if (opts.rateLimitFirstUpdate === true && updates === 1) return { status: 429, headers: { 'Retry-After': '1' }, body: { ok: false, error: 'ratelimited' } };
      return ok({ channel: body.channel, ts: body.ts, text: body.text });
    }
    return { status: 200, body: { ok: false, error: 'unknown_method' } };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      if (req.url === '/response') {
        responses.push(body);
        res.writeHead(200).end('ok');
        return;
      }
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const reply = answer(method, req.headers.authorization, body);
      calls.push({ method, auth: req.headers.authorization, contentType: req.headers['content-type'], body, raw, reply });
      const held = method === 'conversations.open' ? state.holdOpen : null;
      if (held !== null) opensWaiting += 1;
      void (held ?? Promise.resolve()).then(() => {
        if (held !== null) opensWaiting -= 1;
        res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/api`, base, calls, dmChannel, postReplies, responses,
    get holdOpen() { return state.holdOpen; },
    set holdOpen(p: Promise<void> | null) { state.holdOpen = p; },
    get opensWaiting() { return opensWaiting; },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The `action_id`s of a Block Kit message's buttons, in order: what a person can press on it. */
export function actionIds(body: Record<string, unknown>): string[] {
  const blocks = (body.blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id: string }> }>;
  return blocks.flatMap((b) => b.elements?.map((e) => e.action_id) ?? []);
}
