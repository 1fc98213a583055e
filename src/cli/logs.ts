/**
 * `svc logs [-f] [--agent ID] [--since T] [--json] [--url URL] [--dir DIR]` over GET /logs
 * (server-sent events), with the bearer token of token-source.ts.
 * Without -f: everything logged so far (or since T), ending at the server's `caught-up` frame.
 * With -f: follows live; after a dropped connection it reconnects with Last-Event-ID, so nothing is
 * missed or repeated, until interrupted.
 * When the token that opened the stream expires, the server ends it with a `token-expired` system
 * frame (contract §4.6): the client gets a fresh token and resumes with Last-Event-ID at once. A token
 * that cannot be renewed (SVC_TOKEN) ends the command with exit 1.
 */
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { RuntimeError, errorText } from '../core/errors.js';
import type { CliContext } from './context.js';
import { authorizedGet, controlTarget } from './control-client.js';
import type { ControlTarget } from './control-client.js';

export interface LogsOptions {
  follow: boolean;
  agent?: string;
  since?: string;
  json: boolean;
  url?: string;
  /** Agent directory whose controlPlane.auth says how to get a token (token-source.ts). */
  dir?: string;
}

const RECONNECT_DELAY_MS = 1_000;
/** A stream that a fresh token could not keep open this long (ms) expired "at once". */
const INSTANT_EXPIRY_MS = 5_000;
/** Instant expiries in a row before giving up (clock skew between this host and the listener?). */
const MAX_INSTANT_EXPIRIES = 3;

export async function logsCommand(opts: LogsOptions, ctx: CliContext): Promise<number> {
  const target = controlTarget(ctx, opts);
  const params = new URLSearchParams();
  if (opts.agent !== undefined) params.set('agent', opts.agent);
  // Without -f the whole file is wanted (or the part since T); with -f and no T, from now on.
  if (opts.since !== undefined) params.set('since', opts.since);
  else if (!opts.follow) params.set('since', '0');

  const stop = new AbortController();
  void ctx.waitForSignal().then(() => stop.abort());
  let lastId: string | undefined;
  let instantExpiries = 0;
  for (;;) {
    const openedAt = ctx.clock.now();
    const outcome = await readStream(target, `/logs?${params.toString()}`, lastId, stop.signal, opts, ctx, (id) => { lastId = id; });
    if (outcome === 'caught-up' && !opts.follow) return 0;
    if (stop.signal.aborted) return 0;
    if (outcome === 'token-expired') {
      // Resume at once with a fresh token, in both modes: a replay that outlives its token still completes.
      if (!target.tokens.refresh()) {
        throw new RuntimeError('EUNAUTHORIZED', `svc logs: the stream ended because its token expired, and ${target.tokens.origin ?? 'the token'} cannot be renewed`);
      }
      instantExpiries = ctx.clock.now() - openedAt < INSTANT_EXPIRY_MS ? instantExpiries + 1 : 0;
      if (instantExpiries >= MAX_INSTANT_EXPIRIES) {
        throw new RuntimeError('EUNAUTHORIZED', 'svc logs: the control plane keeps ending the stream as soon as it opens (token-expired); ' +
          'are the clocks of this host, the identity provider and the control plane in sync?');
      }
      continue;
    }
    if (outcome === 'ended' && !opts.follow) throw new RuntimeError('ESTREAM', 'svc logs: the stream ended before it caught up');
    if (outcome === 'ended') {
      ctx.stderr('svc logs: connection lost, reconnecting\n');
      await ctx.clock.sleep(RECONNECT_DELAY_MS, stop.signal).catch(() => undefined);
    }
  }
}

type Outcome = 'caught-up' | 'ended' | 'token-expired';
type FrameKind = 'caught-up' | 'token-expired' | null;

async function readStream(target: ControlTarget, pathAndQuery: string, lastId: string | undefined, signal: AbortSignal, opts: LogsOptions,
  ctx: CliContext, remember: (id: string) => void): Promise<Outcome> {
  let res: Response;
  try {
    res = await authorizedGet(target, pathAndQuery,
      { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }, signal);
  } catch (err) {
    if (signal.aborted) return 'ended';
    if (err instanceof RuntimeError) throw err;
    throw new RuntimeError('EUNREACHABLE', `cannot reach the control plane at ${target.base} (is \`svc up\` running?): ${errorText(err)}`);
  }
  if (!res.ok || !res.body) {
    const body = await res.text();
    let error = body.slice(0, 200);
    try {
      const parsed = (JSON.parse(body) as { error?: unknown }).error;
      if (typeof parsed === 'string') error = parsed;
    } catch { /* not JSON */ }
    throw new RuntimeError('EHTTP', `/logs: HTTP ${res.status}: ${error}`);
  }
  let caughtUp = false;
  let tokenExpired = false;
  const parser = createParser({
    onEvent: (e) => {
      const kind = print(e, opts, ctx, remember);
      if (kind === 'caught-up') caughtUp = true;
      else if (kind === 'token-expired') tokenExpired = true;
    },
  });
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return tokenExpired ? 'token-expired' : 'ended';
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (caughtUp && !opts.follow) {
        await reader.cancel();
        return 'caught-up';
      }
      // The server closes the stream right after token-expired; nothing after it is worth waiting for.
      if (tokenExpired) {
        await reader.cancel();
        return 'token-expired';
      }
    }
  } catch {
    return tokenExpired ? 'token-expired' : 'ended'; // aborted, or the connection dropped
  }
}

/** Prints one frame; says whether it was one of the system frames that change what the reader does. */
function print(e: EventSourceMessage, opts: LogsOptions, ctx: CliContext, remember: (id: string) => void): FrameKind {
  if (e.id) remember(e.id);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(e.data) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (e.event === 'system') {
    if (body.system === 'caught-up') return 'caught-up';
    if (body.system === 'token-expired') return 'token-expired'; // handled by the caller, not printed
    if (body.system === 'dropped') ctx.stderr(`svc logs: ${String(body.count)} records dropped (this reader was too slow); see \`svc events\`\n`);
    else ctx.stderr(`svc logs: ${JSON.stringify(body)}\n`);
    return null;
  }
  if (opts.json) {
    ctx.stdout(e.data + '\n');
    return null;
  }
  const { ts, level, agentId, event, ...rest } = body;
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
  ctx.stdout(`${String(ts)} ${String(level).padEnd(5)} ${String(agentId)} ${String(event)}${fields ? ' ' + fields : ''}\n`);
  return null;
}
