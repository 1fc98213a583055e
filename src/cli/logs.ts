/**
 * `svc logs [-f] [--agent ID] [--since T] [--json] [--url URL]` over GET /logs (server-sent events).
 * Without -f: everything logged so far (or since T), ending at the server's `caught-up` frame.
 * With -f: follows live; after a dropped connection it reconnects with Last-Event-ID, so nothing is
 * missed or repeated, until interrupted.
 */
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { RuntimeError, errorText } from '../core/errors.js';
import type { CliContext } from './context.js';
import { controlPlaneUrl } from './control-client.js';

export interface LogsOptions {
  follow: boolean;
  agent?: string;
  since?: string;
  json: boolean;
  url?: string;
}

const RECONNECT_DELAY_MS = 1_000;

export async function logsCommand(opts: LogsOptions, ctx: CliContext): Promise<number> {
  const base = controlPlaneUrl(ctx, opts.url);
  const params = new URLSearchParams();
  if (opts.agent !== undefined) params.set('agent', opts.agent);
  // Without -f the whole file is wanted (or the part since T); with -f and no T, from now on.
  if (opts.since !== undefined) params.set('since', opts.since);
  else if (!opts.follow) params.set('since', '0');

  const stop = new AbortController();
  void ctx.waitForSignal().then(() => stop.abort());
  let lastId: string | undefined;
  for (;;) {
    const outcome = await readStream(`${base}/logs?${params.toString()}`, lastId, stop.signal, opts, ctx, (id) => { lastId = id; });
    if (outcome === 'caught-up' && !opts.follow) return 0;
    if (stop.signal.aborted) return 0;
    if (outcome === 'ended' && !opts.follow) throw new RuntimeError('ESTREAM', 'svc logs: the stream ended before it caught up');
    if (outcome === 'ended') {
      ctx.stderr('svc logs: connection lost, reconnecting\n');
      await new Promise((r) => setTimeout(r, RECONNECT_DELAY_MS));
    }
  }
}

type Outcome = 'caught-up' | 'ended';

async function readStream(url: string, lastId: string | undefined, signal: AbortSignal, opts: LogsOptions, ctx: CliContext,
  remember: (id: string) => void): Promise<Outcome> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }, signal });
  } catch (err) {
    if (signal.aborted) return 'ended';
    throw new RuntimeError('EUNREACHABLE', `cannot reach the control plane at ${new URL(url).origin} (is \`svc up\` running?): ${errorText(err)}`);
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
  const parser = createParser({ onEvent: (e) => { if (print(e, opts, ctx, remember)) caughtUp = true; } });
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return 'ended';
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (caughtUp && !opts.follow) {
        await reader.cancel();
        return 'caught-up';
      }
    }
  } catch {
    return 'ended'; // aborted, or the connection dropped
  }
}

/** Prints one frame; true for the `caught-up` frame. */
function print(e: EventSourceMessage, opts: LogsOptions, ctx: CliContext, remember: (id: string) => void): boolean {
  if (e.id) remember(e.id);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(e.data) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (e.event === 'system') {
    if (body.system === 'caught-up') return true;
    if (body.system === 'dropped') ctx.stderr(`svc logs: ${String(body.count)} records dropped (this reader was too slow); see \`svc events\`\n`);
    else ctx.stderr(`svc logs: ${JSON.stringify(body)}\n`);
    return false;
  }
  if (opts.json) {
    ctx.stdout(e.data + '\n');
    return false;
  }
  const { ts, level, agentId, event, ...rest } = body;
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
  ctx.stdout(`${String(ts)} ${String(level).padEnd(5)} ${String(agentId)} ${String(event)}${fields ? ' ' + fields : ''}\n`);
  return false;
}
