/**
 * What `/readyz` answers (contract §13): ready when the store can be written (a real write:
 * `store.probeWrite`, within 2 s), every ingest listener is listening, the pager's loops do their work
 * (`pages-stalled`: the timer loop or the sender keeps failing, or has completed no pass for a
 * minute — pages would not escalate), and the daemon is not stopping. Concurrent probes share one check, and a result is reused for a second, so a prober's
 * flood costs at most one store write a second. Changes of state are reported once, with the detail
 * the HTTP answer leaves out.
 */
import type { Clock } from '../core/clock.js';
import { withDeadline } from '../core/deadline.js';
import { errorText } from '../core/errors.js';
import type { Readiness } from '../control-plane/routes/health-route.js';
import type { Store } from '../store/store.js';

export const NOT_READY_REASONS = ['store-not-writable', 'ingest-not-listening', 'pages-stalled', 'stopping'] as const;
export type NotReadyCode = (typeof NOT_READY_REASONS)[number];

const PROBE_TIMEOUT_MS = 2_000;
const CACHE_MS = 1_000;

export interface ReadinessDeps {
  store: Pick<Store, 'probeWrite'>;
  clock: Clock;
  /** Ingest listeners that should be up but are not (empty: all listen). */
  notListening(): string[];
  /** What is wrong with the pager's loops (timers, sends); empty when they work or there are no pages. */
  pagerProblems?(): string[];
  stopping(): boolean;
  report(line: string): void;
  timeoutMs?: number;
  cacheMs?: number;
}

export function createReadiness(deps: ReadinessDeps): () => Promise<Readiness> {
  const { clock } = deps;
  const timeoutMs = deps.timeoutMs ?? PROBE_TIMEOUT_MS;
  const cacheMs = deps.cacheMs ?? CACHE_MS;
  let last: { at: number; result: Readiness } | null = null;
  let running: Promise<Readiness> | null = null;
  let wasReady: boolean | null = null;

  async function probeStore(): Promise<string | null> {
    const r = await withDeadline(timeoutMs, clock, undefined, () => deps.store.probeWrite(clock.now()));
    if (r.ok) return null;
    return r.why === 'timeout' ? `no answer within ${timeoutMs} ms` : errorText(r.error);
  }

  async function check(): Promise<Readiness> {
    const reasons: NotReadyCode[] = [];
    const details: string[] = [];
    if (deps.stopping()) reasons.push('stopping');
    const storeError = await probeStore();
    if (storeError !== null) {
      reasons.push('store-not-writable');
      details.push(`store: ${storeError}`);
    }
    const down = deps.notListening();
    if (down.length > 0) {
      reasons.push('ingest-not-listening');
      details.push(`not listening: ${down.join(', ')}`);
    }
    const pager = deps.pagerProblems?.() ?? [];
    if (pager.length > 0) {
      reasons.push('pages-stalled');
      details.push(...pager);
    }
    const ready = reasons.length === 0;
    if (ready !== wasReady) {
      deps.report(ready ? 'readiness: ready' : `readiness: not ready (${reasons.join(', ')}${details.length > 0 ? `; ${details.join('; ')}` : ''})`);
      wasReady = ready;
    }
    return { ready, reasons };
  }

  return () => {
    if (last !== null && clock.monotonic() - last.at < cacheMs) return Promise.resolve(last.result);
    running ??= check().then((result) => {
      last = { at: clock.monotonic(), result };
      return result;
    }).finally(() => { running = null; });
    return running;
  };
}
