/**
 * Reading GET /logs (server-sent events) from one listener, for `svc logs` and `svc fleet logs`.
 *
 * Without follow: everything logged so far (or since T), ending at the server's `caught-up` frame.
 * With follow: live records until the signal aborts; after a dropped connection (or one that went
 * silent: no byte, not even the 15 s keep-alive, for 45 s; without follow such a stream is an error) it
 * reconnects with Last-Event-ID, so
 * nothing is missed or repeated (contract §6). A reconnect that has no id yet to give asks for the
 * records since the follow started instead.
 * When the token that opened the stream expires, the server ends it with a `token-expired` system
 * frame (contract §4.6): a fresh token is fetched and the stream resumed with Last-Event-ID at once.
 * A token that cannot be renewed (SVC_TOKEN, a fixed bearer token) ends the follow with an error.
 */
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { backoffMs } from '../core/backoff.js';
import type { TimerHandle } from '../core/clock.js';
import { linkSignals, startDeadline } from '../core/deadline.js';
import { HttpError, RuntimeError, errorText } from '../core/errors.js';
import { networkFailure } from '../core/net-errors.js';
import { LineTooLongError, readBodyText, streamBodyText } from '../core/read-body.js';
import { DEFAULT_MAX_LINE_BYTES } from '../logs/line-splitter.js';
import type { ControlTarget } from './control-client.js';
import { MAX_ERROR_BYTES, authorizedGet, httpError } from './control-client.js';

/** One `log` frame: its id, the record as sent (JSON text) and parsed. */
export interface LogFrame {
  id: string | undefined;
  data: string;
  record: Record<string, unknown>;
}

export interface FollowLogsOptions {
  target: ControlTarget;
  /** One agent (default: every running agent). */
  agent?: string;
  /** Records with `ts >= since` (ISO-8601 or integer ms, as the listener takes it). */
  since?: string;
  follow: boolean;
  /** Stops the follow; the promise then resolves. */
  signal: AbortSignal;
  onRecord(frame: LogFrame): void;
  /** System frames other than `caught-up` and `token-expired` (`dropped`, `tailer-error`, …). */
  onSystem(body: Record<string, unknown>): void;
  /** The stream is open (after each (re)connection). */
  onConnected?(): void;
  /** Follow mode: the stream was lost or could not be opened and will be retried; `brief` says why. */
  onLost?(brief: string): void;
  /** Bounds how many streams are being opened at once (svc fleet: 16); the open streams are not counted. */
  gate?: <T>(open: () => Promise<T>) => Promise<T>;
  /**
   * Follow mode: also retry when the listener cannot be reached, does not answer in time or answers
   * 5xx (svc fleet keeps trying a host that is down). Otherwise those end the follow with an error.
   */
  retryUnreachable?: boolean;
}

/** Reconnect delays: 1 s after a drop, doubling while attempts keep failing, at most 30 s. */
const RECONNECT = { initialBackoffMs: 1_000, maxBackoffMs: 30_000 };
/** A stream that a fresh token could not keep open this long (ms) expired "at once". */
const INSTANT_EXPIRY_MS = 5_000;
/** Instant expiries in a row before giving up (clock skew between this host and the listener?). */
const MAX_INSTANT_EXPIRIES = 3;
/** The listener sends a keep-alive every 15 s; three missed ones mean the connection is dead. */
const STALL_MS = 45_000;
const STALL_CHECK_MS = 15_000;
/**
 * The longest SSE line taken: a log record the listener sends (its tailer cuts lines at
 * DEFAULT_MAX_LINE_BYTES) with its `data: ` field name, and room to spare. A line that grows past it
 * without a break is a hostile or broken listener: the stream is closed, never buffered further.
 */
export const MAX_SSE_LINE_BYTES = 2 * DEFAULT_MAX_LINE_BYTES;

type Outcome = 'caught-up' | 'ended' | 'token-expired';

/** Resolves when caught up (without follow) or stopped; rejects with a RuntimeError (it has a `brief`). */
export async function followLogs(o: FollowLogsOptions): Promise<void> {
  const { target, signal } = o;
  const clock = target.clock;
  const startedAt = clock.now();
  let lastId: string | undefined;
  let instantExpiries = 0;
  let failures = 0;
  for (;;) {
    if (signal.aborted) return;
    const params = new URLSearchParams();
    if (o.agent !== undefined) params.set('agent', o.agent);
    // Without follow the whole file is wanted (or the part since T); with follow and no T, from now
    // on, and after a failed first attempt from when the follow started.
    if (o.since !== undefined) params.set('since', o.since);
    else if (!o.follow) params.set('since', '0');
    else if (failures > 0 && lastId === undefined) params.set('since', String(startedAt));

    const openedAt = clock.now();
    let outcome: Outcome;
    try {
      outcome = await readStream(o, `/logs?${params.toString()}`, lastId, () => { failures = 0; o.onConnected?.(); },
        (id) => { lastId = id; });
    } catch (err) {
      if (signal.aborted) return;
      if (!o.follow || !o.retryUnreachable || !retriable(err)) throw err;
      failures += 1;
      o.onLost?.(err instanceof RuntimeError && err.brief !== null ? err.brief : 'network error');
      await clock.sleep(backoffMs(RECONNECT, failures), signal).catch(() => undefined);
      continue;
    }
    if (signal.aborted) return;
    if (outcome === 'caught-up' && !o.follow) return;
    if (outcome === 'token-expired') {
      // Resume at once with a fresh token, in both modes: a replay that outlives its token still completes.
      if (!target.tokens.refresh()) {
        throw new RuntimeError('EUNAUTHORIZED', `svc logs: the stream ended because its token expired, and ${target.tokens.origin ?? 'the token'} cannot be renewed`,
          'token expired (cannot be renewed)');
      }
      instantExpiries = clock.now() - openedAt < INSTANT_EXPIRY_MS ? instantExpiries + 1 : 0;
      if (instantExpiries >= MAX_INSTANT_EXPIRIES) {
        throw new RuntimeError('EUNAUTHORIZED', 'svc logs: the control plane keeps ending the stream as soon as it opens (token-expired); ' +
          'are the clocks of this host, the identity provider and the control plane in sync?', 'token expires as soon as the stream opens');
      }
      continue;
    }
    if (outcome === 'ended' && !o.follow) {
      throw new RuntimeError('ESTREAM', 'svc logs: the stream ended before it caught up', 'stream ended before it caught up');
    }
    if (outcome === 'ended') {
      failures += 1;
      o.onLost?.('connection lost');
      await clock.sleep(backoffMs(RECONNECT, failures), signal).catch(() => undefined);
    }
  }
}

/** A listener that is down, slow, or failing on its side may come back; a 4xx answer will not change. */
function retriable(err: unknown): boolean {
  if (!(err instanceof RuntimeError)) return false;
  if (err.code === 'EUNREACHABLE' || err.code === 'ETIMEOUT' || err.code === 'ETOKEN') return true;
  return err instanceof HttpError && err.status >= 500;
}

async function readStream(o: FollowLogsOptions, pathAndQuery: string, lastId: string | undefined, connected: () => void,
  remember: (id: string) => void): Promise<Outcome> {
  const { target, signal } = o;
  // The stream lives until stopped or dropped; the deadline covers the wait for its headers only.
  const cut = new AbortController(); // by the deadline on the headers
  const link = linkSignals(signal, cut.signal);
  let stall: TimerHandle | null = null;
  const open = async (): Promise<Response> => {
    const deadline = startDeadline(target.timeoutMs, target.clock);
    const onTimeout = (): void => cut.abort();
    deadline.signal.addEventListener('abort', onTimeout, { once: true });
    try {
      return await authorizedGet(target, pathAndQuery,
        { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }, link.signal);
    } catch (err) {
      if (deadline.why() === 'timeout') {
        throw new RuntimeError('ETIMEOUT', `/logs: no answer from ${target.base} within ${target.timeoutMs} ms`, 'timeout');
      }
      if (signal.aborted || err instanceof RuntimeError) throw err;
      throw new RuntimeError('EUNREACHABLE', `cannot reach the control plane at ${target.base} (is \`svc up\` running?): ${errorText(err)}`,
        networkFailure(err));
    } finally {
      deadline.signal.removeEventListener('abort', onTimeout);
      deadline.dispose();
    }
  };
  try {
    let res: Response;
    try {
      res = await (o.gate ? o.gate(open) : open());
    } catch (err) {
      if (signal.aborted) return 'ended';
      throw err;
    }
    if (!res.ok || !res.body) {
      const body = await readBodyText(res, MAX_ERROR_BYTES, () => cut.abort()).catch(() => '');
      throw httpError('/logs', res.status, body);
    }
    connected();
    let caughtUp = false;
    let tokenExpired = false;
    const parser = createParser({
      onEvent: (e) => {
        const kind = handle(e, o, remember);
        if (kind === 'caught-up') caughtUp = true;
        else if (kind === 'token-expired') tokenExpired = true;
      },
    });
    const reader = streamBodyText(res, MAX_SSE_LINE_BYTES, () => cut.abort());
    let lastByteAt = target.clock.monotonic();
    const watch = (): void => {
      if (target.clock.monotonic() - lastByteAt >= STALL_MS) {
        stall = null;
        void reader.cancel().catch(() => undefined);
        return;
      }
      stall = target.clock.setTimer(watch, STALL_CHECK_MS);
    };
    // Also without follow: a replay whose host hung mid-stream ends instead of waiting forever.
    stall = target.clock.setTimer(watch, STALL_CHECK_MS);
    try {
      for (;;) {
        const text = await reader.read();
        if (text === null) return tokenExpired ? 'token-expired' : 'ended';
        lastByteAt = target.clock.monotonic();
        parser.feed(text);
        if (caughtUp && !o.follow) {
          await reader.cancel();
          return 'caught-up';
        }
        // The server closes the stream right after token-expired; nothing after it is worth waiting for.
        if (tokenExpired) {
          await reader.cancel();
          return 'token-expired';
        }
      }
    } catch (err) {
      if (err instanceof LineTooLongError) {
        throw new RuntimeError('ESTREAM', `/logs: ${target.base} sent a line over ${MAX_SSE_LINE_BYTES} bytes; the stream was closed`,
          'stream line too long');
      }
      return tokenExpired ? 'token-expired' : 'ended'; // aborted, or the connection dropped
    }
  } finally {
    if (stall !== null) target.clock.clearTimer(stall);
    link.dispose();
  }
}

type FrameKind = 'caught-up' | 'token-expired' | null;

/** Hands one frame on; says whether it was one of the system frames that change what the reader does. */
function handle(e: EventSourceMessage, o: FollowLogsOptions, remember: (id: string) => void): FrameKind {
  // The id is remembered before the frame is handed on: a resume starts after the last frame received.
  if (e.id) remember(e.id);
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(e.data);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    body = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (e.event === 'system') {
    if (body.system === 'caught-up') return 'caught-up';
    if (body.system === 'token-expired') return 'token-expired'; // handled by the caller, not shown
    o.onSystem(body);
    return null;
  }
  o.onRecord({ id: e.id, data: e.data, record: body });
  return null;
}
