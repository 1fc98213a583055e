/**
 * Keeps the report cache warm while the daemon runs (contract §23.2): a first catch-up soon after the
 * start — from the stored checkpoint, or every row when there is none — and then one every
 * FACTS_SAVE_EVERY_MS, each saving a checkpoint when something changed. So the first report after a
 * start finds the facts folded, and a restart finds a recent checkpoint even when nobody asked for a
 * report. It runs beside readiness and ingest, never before them; a failure is logged and tried again
 * after FACTS_RETRY_MS.
 */
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import { timerSlot } from '../core/timer-slot.js';
import type { FactsLog, ReportFacts } from './report-cache.js';
import { FACTS_SAVE_EVERY_MS } from './report-cache.js';

/** The first catch-up waits this long after the start: the daemon's own start goes first. */
export const FACTS_WARM_AFTER_MS = 10_000;
/** A failed catch-up (the store unreachable a while) is tried again after this. */
export const FACTS_RETRY_MS = 60_000;

export interface FactsWarmer {
  /** Stops the timer and the catch-up under way (between chunks), and waits for it and for a save under way. */
  close(): Promise<void>;
}

export interface FactsWarmerDeps {
  facts: ReportFacts;
  clock: Pick<Clock, 'setTimer' | 'clearTimer'>;
  log: FactsLog;
  /**
   * Run after the first catch-up: the daemon computes the default report, so what aggregation keeps
   * between reports (each page's interruptions, aggregate-report.ts's memo) is worked out before
   * anyone asks.
   */
  prime?: () => Promise<void>;
}

export function startFactsWarmer(deps: FactsWarmerDeps): FactsWarmer {
  const stop = new AbortController();
  let run: Promise<void> = Promise.resolve();
  // The default report is computed once, after the first catch-up: it works out every kept page's
  // interruptions; later reports work out only new pages' on their own. Computing it every refresh
  // would hold the event loop (≈0.2 s at 100,000 pages) every FACTS_SAVE_EVERY_MS for little.
  let primed = false;
  const refresh = async (): Promise<void> => {
    await deps.facts.refresh();
    if (deps.prime === undefined || primed || stop.signal.aborted) return;
    await deps.prime();
    primed = true;
  };
  const slot = timerSlot(deps.clock, stop.signal, () => {
    run = refresh().then(() => slot.set(FACTS_SAVE_EVERY_MS), (err: unknown) => {
      if (stop.signal.aborted) return;
      deps.log('warn', 'report.facts.refresh-failed', { error: errorText(err), retryInMs: FACTS_RETRY_MS });
      slot.set(FACTS_RETRY_MS);
    });
  });
  slot.set(FACTS_WARM_AFTER_MS);
  return {
    async close() {
      stop.abort();
      const saved = deps.facts.stop();
      await run;
      await saved;
    },
  };
}
