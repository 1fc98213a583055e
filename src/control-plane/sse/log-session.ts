/**
 * One /logs client's subscriptions: one per agent on the shared tailers, multiplexed into one client
 * stream with per-line frame ids (src/logs/resume-id.ts) that carry every agent's position.
 *
 * Until every subscription has reported its start position, events are held back, so that no id is
 * ever issued without a position for each agent (an agent whose file reader is still opening would
 * otherwise be missing from the id, and a resume from it could skip that agent's lines).
 */
import type { TailerRegistry } from '../../logs/file-tailer.js';
import type { LineParser } from '../../logs/log-record.js';
import { resumeIdFromSegments, resumeSegment } from '../../logs/resume-id.js';
import type { SubscribeOptions, Subscription, TailLine, TailListener, TailPosition } from '../../logs/tail-types.js';
import type { ClientStream, SharedBatch } from './client-stream.js';
import { eventFrame, systemFrame } from './frames.js';

export interface LogSessionOptions {
  stream: ClientStream;
  /** The agents of this stream, in id order (already validated and known to be running). */
  agents: readonly string[];
  logPath: (agentId: string) => string;
  tailers: Pick<TailerRegistry, 'subscribe'>;
  /** Only records with `ts >= sinceMs` are sent; files are replayed from byte 0. */
  sinceMs: number | null;
  /** Positions from Last-Event-ID; agents without one start as if there were none. */
  resume: ReadonlyMap<string, TailPosition> | null;
  parse: LineParser;
  /** Caches shared by the clients of one route (see AgentFrameCache). */
  caches: (agentId: string) => AgentFrameCache;
  /**
   * Called once every subscription has fixed where it starts (or failed to): from then on, every
   * line written to a file reaches this client. The route sends its headers then, so a client that
   * writes a line after the answer began is sure to receive it.
   */
  onStarted?: () => void;
}

/**
 * Frames of single-agent streams are the same for every client: built once per line, and a batch
 * of lines (the tailer hands the same batch array to every live subscriber) encoded once per `since`
 * value. Weak keys: entries go when the tailer lets go of its lines.
 */
export interface AgentFrameCache {
  frames: WeakMap<TailLine, string>;
  batches: WeakMap<readonly TailLine[], Map<number | null, SharedBatch>>;
}

export function createAgentFrameCache(): AgentFrameCache {
  return { frames: new WeakMap(), batches: new WeakMap() };
}

export function startLogSession(o: LogSessionOptions): void {
  const { stream, agents } = o;
  const single = agents.length === 1;
  const segments = agents.map(() => '');
  let held: (() => void)[] | null = agents.length > 0 ? [] : null;
  let heldWaiters: (() => void)[] = [];
  let waiting = agents.length;
  let behind = agents.length; // agents still replaying; 0 → one `caught-up` frame
  const subs: Subscription[] = [];

  const run = (fn: () => void): void => {
    if (held !== null) held.push(fn);
    else fn();
  };

  function lineFrame(agent: string, line: TailLine, id: string): string {
    const parsed = o.parse(line);
    if (parsed.ok) return eventFrame('log', parsed.json, id);
    return systemFrame({ system: 'invalid-record', agent, reason: parsed.reason, offset: line.start }, id);
  }

  function passes(line: TailLine): boolean {
    if (o.sinceMs === null) return true;
    const parsed = o.parse(line);
    return parsed.ok && parsed.tsMs >= o.sinceMs;
  }

  function onLines(i: number, agent: string, batch: readonly TailLine[]): void {
    if (single) {
      const cache = o.caches(agent);
      let bySince = cache.batches.get(batch);
      if (bySince === undefined) { bySince = new Map(); cache.batches.set(batch, bySince); }
      let shared = bySince.get(o.sinceMs);
      if (shared === undefined) {
        const frames: string[] = [];
        for (const line of batch) {
          if (!passes(line)) continue;
          let frame = cache.frames.get(line);
          if (frame === undefined) {
            frame = lineFrame(agent, line, resumeIdFromSegments([resumeSegment(agent, positionAfter(line))]));
            cache.frames.set(line, frame);
          }
          frames.push(frame);
        }
        shared = { frames, bytes: Buffer.from(frames.join('')) };
        bySince.set(o.sinceMs, shared);
      }
      stream.sendLines(shared);
      return;
    }
    for (const line of batch) {
      segments[i] = resumeSegment(agent, positionAfter(line));
      if (passes(line)) stream.sendLine(lineFrame(agent, line, resumeIdFromSegments(segments)));
    }
  }

  function listenerFor(i: number, agent: string): TailListener {
    return {
      start(pos) {
        segments[i] = resumeSegment(agent, pos);
        waiting -= 1;
        if (waiting === 0) o.onStarted?.();
        if (waiting > 0 || held === null) return;
        const fns = held;
        held = null;
        for (const fn of fns) fn();
        const ws = heldWaiters;
        heldWaiters = [];
        for (const w of ws) w();
      },
      lines(batch) {
        if (held !== null) { const copy = [...batch]; run(() => onLines(i, agent, copy)); return; }
        onLines(i, agent, batch);
      },
      notice(kind, pos) {
        run(() => {
          segments[i] = resumeSegment(agent, pos);
          stream.sendSystem(systemFrame({ system: kind, agent }));
        });
      },
      error() {
        // The cause stays on the server: a client learns which agent's log cannot be read, no more.
        run(() => stream.sendSystem(systemFrame({ system: 'tailer-error', agent })));
      },
      live() {
        // Tells a client (`svc logs` without -f) that everything written before it came is sent.
        run(() => { if (--behind === 0) stream.sendSystem(systemFrame({ system: 'caught-up' })); });
      },
    };
  }

  const waitForRoom = (): Promise<void> | null => {
    if (held !== null) return new Promise<void>((resolve) => { heldWaiters.push(resolve); });
    return stream.room();
  };

  stream.onClose(() => {
    for (const s of subs.splice(0)) s.unsubscribe();
    held = null;
    for (const w of heldWaiters.splice(0)) w();
  });

  agents.forEach((agent, i) => {
    if (stream.isClosed()) return;
    const p = o.resume?.get(agent);
    const opts: SubscribeOptions = p !== undefined
      ? { fromStart: false, afterOffset: p.end, verify: { ino: p.ino, len: p.len, crc: p.crc }, waitForRoom }
      : { fromStart: o.sinceMs !== null, waitForRoom };
    subs.push(o.tailers.subscribe(o.logPath(agent), listenerFor(i, agent), opts));
  });
}

function positionAfter(line: TailLine): TailPosition {
  return { ino: line.ino, end: line.end, len: line.end - line.start, crc: line.crc };
}
