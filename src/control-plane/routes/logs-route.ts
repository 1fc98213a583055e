/**
 * GET /logs: a live server-sent-events tail of the per-agent log files (specification "GET /logs",
 * contract §4.6 and §6).
 *
 * - `agent` (optional; default every running agent, multiplexed): must match the agent id pattern
 *   AND be a running agent, checked before any file-system access; otherwise 400
 *   `{"error":"unknown agent \"<id>\""}` (the id echoed at most 64 characters long).
 * - `since` (ISO-8601 or integer ms): each file is replayed from byte 0 and only records with
 *   `ts >= since` are sent, then the stream continues live.
 * - `Last-Event-ID`: resumes every agent of the stream right after the position in the id.
 * - The stream ends with `{"system":"token-expired"}` when the token that opened it expires.
 */
import { ID_PATTERN } from '../../config/schema.js';
import type { Clock, TimerHandle } from '../../core/clock.js';
import { MAX_TIMER_MS } from '../../core/clock.js';
import type { TailerRegistry } from '../../logs/file-tailer.js';
import { createLineParser } from '../../logs/log-record.js';
import { decodeResumeId } from '../../logs/resume-id.js';
import type { TailPosition } from '../../logs/tail-types.js';
import { sendError } from '../http-json.js';
import { parseTimeParam, singleParam } from '../query.js';
import type { Principal, RouteHandler } from '../route.js';
import { createClientStream } from '../sse/client-stream.js';
import type { ClientStream } from '../sse/client-stream.js';
import { SSE_HEADERS, systemFrame } from '../sse/frames.js';
import { createKeepAliveTick } from '../sse/keep-alive-tick.js';
import { createAgentFrameCache, startLogSession } from '../sse/log-session.js';
import type { AgentFrameCache } from '../sse/log-session.js';

export interface LogsRouteDeps {
  /** Ids of the running agents. */
  agents: () => readonly string[];
  /** The log file of an agent; only ever called with a running agent's validated id. */
  logPath: (agentId: string) => string;
  tailers: Pick<TailerRegistry, 'subscribe'>;
  clock: Clock;
  /** Default 15 000 ms (specification, Limits); one timer beats every stream of the route. */
  keepAliveMs?: number;
  /** Default 1024 (specification, Limits). */
  maxPendingFrames?: number;
}

type Parsed =
  | { ok: true; agents: string[]; sinceMs: number | null; resume: Map<string, TailPosition> | null }
  | { ok: false; error: string };

/** How much of a rejected id is echoed back. */
const ECHO_MAX_CHARS = 64;
/** Controls, format characters (zero-width, bidi overrides), line/paragraph separators, lone surrogates. */
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u;

/**
 * The 400 text of the specification, echoing the id safely: at most 64 code points (then "…"), and
 * characters that could hide or reorder text in a terminal or log viewer written as `\uXXXX`.
 */
export function unknownAgentMessage(id: string): string {
  const chars = Array.from(id); // code points: never cut a surrogate pair in half
  const shown = chars.slice(0, ECHO_MAX_CHARS)
    .map((c) => (NOT_PRINTABLE.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
    .join('');
  return `unknown agent "${shown}${chars.length > ECHO_MAX_CHARS ? '…' : ''}"`;
}

export function parseLogsRequest(url: URL, lastEventId: string | string[] | undefined, running: readonly string[]): Parsed {
  const agent = singleParam(url.searchParams, 'agent');
  if (!agent.ok) return agent;
  const known = [...new Set(running.filter((id) => ID_PATTERN.test(id)))].sort();
  let agents = known;
  if (agent.value !== null) {
    if (!ID_PATTERN.test(agent.value) || !known.includes(agent.value)) return { ok: false, error: unknownAgentMessage(agent.value) };
    agents = [agent.value];
  }
  const since = singleParam(url.searchParams, 'since');
  if (!since.ok) return since;
  let sinceMs: number | null = null;
  if (since.value !== null) {
    const t = parseTimeParam('since', since.value);
    if (!t.ok) return t;
    sinceMs = t.value;
  }
  let resume: Map<string, TailPosition> | null = null;
  if (Array.isArray(lastEventId)) return { ok: false, error: 'invalid Last-Event-ID: given more than once' };
  if (lastEventId !== undefined && lastEventId !== '') {
    const r = decodeResumeId(lastEventId);
    if (!r.ok) return r;
    resume = r.positions;
  }
  return { ok: true, agents, sinceMs, resume };
}

/** Whether a `Connection` header carries the `close` option. */
export function asksToClose(connection: string | undefined): boolean {
  return connection !== undefined && connection.split(',').some((option) => option.trim().toLowerCase() === 'close');
}

/** Ends the stream with `{"system":"token-expired"}` when the principal's token expires (contract §4.6). */
function armTokenExpiry(stream: ClientStream, principal: Principal, clock: Clock): void {
  const expiresAt = principal.expiresAtMs;
  if (expiresAt === null) return;
  let handle: TimerHandle | null = null;
  const check = (): void => {
    handle = null;
    const left = expiresAt - clock.now();
    if (left <= 0) { stream.end(systemFrame({ system: 'token-expired' })); return; }
    handle = clock.setTimer(check, Math.min(left, MAX_TIMER_MS));
  };
  stream.onClose(() => { if (handle !== null) clock.clearTimer(handle); });
  check();
}

export function createLogsRoute(deps: LogsRouteDeps): RouteHandler {
  const parse = createLineParser();
  const keepAlive = createKeepAliveTick({ clock: deps.clock, intervalMs: deps.keepAliveMs });
  const frameCaches = new Map<string, AgentFrameCache>();
  const caches = (agentId: string): AgentFrameCache => {
    let cache = frameCaches.get(agentId);
    if (cache === undefined) { cache = createAgentFrameCache(); frameCaches.set(agentId, cache); }
    return cache;
  };

  return async ({ req, res, url, signal, principal }) => {
    const parsed = parseLogsRequest(url, req.headers['last-event-id'], deps.agents());
    if (!parsed.ok) {
      sendError(req, res, 400, parsed.error);
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    // The specification's `Connection: keep-alive` overrides what Node would do for a client that
    // asked for `Connection: close`; RFC 9112 §9.6 still wants its connection closed after the answer,
    // not left idle until the keep-alive timeout (at once for HEAD).
    if (asksToClose(req.headers.connection)) {
      const socket = req.socket;
      res.once('finish', () => { socket.end(); });
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createClientStream({ res, clock: deps.clock, keepAlive, maxPendingFrames: deps.maxPendingFrames });
    const onAbort = (): void => stream.end();
    if (signal.aborted) stream.end();
    else signal.addEventListener('abort', onAbort, { once: true });
    stream.onClose(() => signal.removeEventListener('abort', onAbort));
    armTokenExpiry(stream, principal, deps.clock);
    startLogSession({
      stream,
      agents: parsed.agents,
      logPath: deps.logPath,
      tailers: deps.tailers,
      sinceMs: parsed.sinceMs,
      resume: parsed.resume,
      parse,
      caches,
      // The headers go out once every tail has fixed where it starts: a client that writes a line
      // after the answer began is then sure to see it (without `since`, tails start at the end).
      // (`headersSent` is already true after writeHead, before anything is written: not a guard here.)
      onStarted: () => { if (!res.writableEnded) res.flushHeaders(); },
    });
    if (parsed.agents.length === 0 && !res.writableEnded) res.flushHeaders();
    await stream.closed;
  };
}
