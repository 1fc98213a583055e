/**
 * `svc fleet logs [-f] [--agent ID] [--since T]`: the /logs streams of every selected host.
 *
 * Without -f: each host's records up to its `caught-up` frame (at most 16 hosts at once), merged by
 * time, each line prefixed by its host; `--json` gives the fleet envelope.
 * With -f: every host followed at once (at most 16 streams being opened at a time), lines printed as
 * they come, prefixed by their host (`--json`: one JSON record a line, with `host`). A host whose
 * stream drops or cannot be opened is retried with back-off and resumed with Last-Event-ID, so its
 * lines have no gap and no duplicate (log-stream.ts); one that refuses (HTTP 4xx) is no longer
 * followed. On SIGINT/SIGTERM stderr ends with `N/M hosts answered`, counting the hosts whose stream
 * was open at that moment; exit 0 when all of them were.
 *
 * A host that does not run the agent named by --agent answers 400 `unknown agent`: it has no records
 * of that agent, and counts as answered.
 */
import { linkSignals } from '../../core/deadline.js';
import { HttpError, RuntimeError } from '../../core/errors.js';
import type { CliContext } from '../context.js';
import { followLogs } from '../log-stream.js';
import type { LogFrame } from '../log-stream.js';
import { describeSystemFrame, formatRecord } from '../logs.js';
import { timeArg } from '../time-arg.js';
import { FLEET_CONCURRENCY, fanOut } from './fan-out.js';
import { createSemaphore } from '../../core/semaphore.js';
import type { FleetOptions, HostTarget } from './hosts.js';
import { fleetTargets } from './hosts.js';
import { MAX_HOST_BYTES, withinHostDeadline } from './host-limits.js';
import { mergeRows } from './merge.js';
import type { HostReport } from './report.js';
import { completenessText, failureBrief, isComplete, writeEnvelope } from './report.js';

export interface FleetLogsOptions extends FleetOptions {
  follow: boolean;
  agent?: string;
  since?: string;
}

export async function fleetLogsCommand(opts: FleetLogsOptions, ctx: CliContext): Promise<number> {
  const since = opts.since === undefined ? undefined : timeArg('svc fleet logs: --since', opts.since, ctx.clock);
  const targets = fleetTargets(opts, ctx);
  const width = Math.max(...targets.map((t) => t.host.name.length));
  const line = (host: string, frame: LogFrame): string => (opts.json
    ? `${JSON.stringify({ host, ...frame.record })}\n`
    : `${host.padEnd(width)}  ${formatRecord(frame)}\n`);
  const stop = new AbortController();
  void ctx.waitForSignal().then(() => stop.abort());
  const common = { agent: opts.agent, since, signal: stop.signal };
  const notice = (host: string, text: string): void => ctx.stderr(`svc fleet: ${host}: ${text}\n`);
  return opts.follow ? follow(targets, common, line, notice, ctx) : replay(targets, common, opts.json, line, notice, ctx);
}

type Common = { agent?: string; since?: string; signal: AbortSignal };
type Line = (host: string, frame: LogFrame) => string;
type Notice = (host: string, text: string) => void;

/** The 400 of a host that does not run the agent asked for (specification: `unknown agent "<id>"`). */
function unknownAgent(err: unknown): boolean {
  return err instanceof HttpError && err.status === 400 && (err.error ?? '').startsWith('unknown agent ');
}

async function replay(targets: HostTarget[], common: Common, json: boolean, line: Line, notice: Notice, ctx: CliContext): Promise<number> {
  const settled = await fanOut(targets, FLEET_CONCURRENCY, ({ host, target }) => withinHostDeadline(host, ctx.clock, common.signal,
    async (signal) => {
      const frames: Array<{ n: number; frame: LogFrame }> = [];
      // The replay is held until every host is done (to merge it): past MAX_HOST_BYTES the host is failed.
      const tooMuch = new AbortController();
      const link = linkSignals(signal, tooMuch.signal);
      let bytes = 0;
      try {
        await followLogs({ ...common, signal: link.signal, target, follow: false,
          onRecord: (frame) => {
            bytes += Buffer.byteLength(frame.data);
            if (bytes > MAX_HOST_BYTES) tooMuch.abort();
            else frames.push({ n: frames.length, frame });
          },
          onSystem: (body) => notice(host.name, describeSystemFrame(body)) });
      } catch (err) {
        if (!unknownAgent(err)) throw err;
      } finally {
        link.dispose();
      }
      if (tooMuch.signal.aborted) {
        throw new RuntimeError('ETOOLARGE', `${host.name}: log records over ${MAX_HOST_BYTES} bytes before caught-up`,
          `log records over ${MAX_HOST_BYTES / (1024 * 1024)} MiB in all`);
      }
      return frames;
    }));
  const reports: HostReport[] = settled.map((s, i) => {
    const name = targets[i]?.host.name ?? '?';
    return s.ok ? { name, ok: true, error: null } : { name, ok: false, error: failureBrief(s.error) };
  });
  const perHost = settled.flatMap((s, i) => (s.ok ? [{ host: targets[i]?.host.name ?? '?', items: s.value }] : []));
  // Within one host and one millisecond, records keep the order the host sent them in.
  const rows = mergeRows(perHost, 'asc', (r) => String(r.frame.record.ts), (r) => r.n);
  if (json) {
    writeEnvelope(ctx, rows.map((r) => ({ host: r.host, item: r.item.frame.record })), reports);
  } else {
    for (const r of rows) ctx.stdout(line(r.host, r.item.frame));
  }
  ctx.stderr(completenessText(reports));
  return isComplete(reports) ? 0 : 1;
}

interface FollowState { open: boolean; error: string | null; followed: boolean }

async function follow(targets: HostTarget[], common: Common, line: Line, notice: Notice, ctx: CliContext): Promise<number> {
  const limiter = createSemaphore(FLEET_CONCURRENCY);
  const states = targets.map((): FollowState => ({ open: false, error: 'not connected yet', followed: true }));
  const follows = targets.map(({ host, target }, i) => {
    const st = states[i] as FollowState;
    return followLogs({
      ...common, target, follow: true, retryUnreachable: true,
      gate: (open) => limiter.run(open),
      onRecord: (frame) => ctx.stdout(line(host.name, frame)),
      onSystem: (body) => notice(host.name, describeSystemFrame(body)),
      onConnected: () => {
        if (st.error !== null && st.error !== 'not connected yet') notice(host.name, 'reconnected');
        st.open = true;
        st.error = null;
      },
      onLost: (brief) => {
        // Said once per change, not at every retry of a host that stays down.
        if (st.open || st.error !== brief) notice(host.name, `${brief}; reconnecting`);
        st.open = false;
        st.error = brief;
      },
    }).catch((err: unknown) => {
      st.followed = false;
      st.open = false;
      if (unknownAgent(err)) {
        st.error = null;
        notice(host.name, `does not run agent ${JSON.stringify(common.agent ?? '')}; not followed`);
        return;
      }
      st.error = failureBrief(err);
      notice(host.name, `${st.error}; no longer followed`);
    });
  });
  const everyEnded = Promise.all(follows);
  const stopped = new Promise<void>((resolve) => {
    if (common.signal.aborted) resolve();
    else common.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([stopped, everyEnded]);
  // Whether a host answered is judged as things stand when the follow ends, before streams close.
  const reports: HostReport[] = targets.map(({ host }, i) => {
    const st = states[i] as FollowState;
    const ok = st.open || (!st.followed && st.error === null);
    return { name: host.name, ok, error: ok ? null : st.error ?? 'no answer' };
  });
  await everyEnded; // after a stop every stream and back-off sleep ends at once
  ctx.stderr(completenessText(reports));
  return isComplete(reports) ? 0 : 1;
}
