/**
 * Retention (contract §10.5): every `intervalMs`, prunes in small batches — processed and
 * dead-lettered events and dead letters past their configured age, and idempotency fingerprints past
 * their window — one batch per store call with a pause between, so the writer is never held long and
 * a request never waits behind a prune. The audit chain is never pruned.
 */
import type { RetentionSettings } from '../config/store.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Store } from '../store/store.js';

export interface Retention {
  /** Prunes until a batch comes back short (tests; the timer does the same). */
  runOnce(): Promise<{ events: number; deadLetters: number; fingerprints: number }>;
  close(): void;
}

export function startRetention(deps: {
  store: Store;
  clock: Clock;
  retention: RetentionSettings;
  /** Fingerprints older than this are past the idempotency window. */
  windowMs: number;
  intervalMs?: number;
  batch?: number;
  /** Pause between two batches of one run. */
  pauseMs?: number;
  onError: (err: unknown) => void;
  onPruned?: (counts: { events: number; deadLetters: number; fingerprints: number }) => void;
}): Retention {
  const intervalMs = deps.intervalMs ?? 60_000;
  const batch = deps.batch ?? 500;
  const pauseMs = deps.pauseMs ?? 50;
  const stop = new AbortController();
  let timer: TimerHandle | null = null;

  const runOnce = async (): Promise<{ events: number; deadLetters: number; fingerprints: number }> => {
    const total = { events: 0, deadLetters: 0, fingerprints: 0 };
    for (;;) {
      const now = deps.clock.now();
      const r = await deps.store.prune({
        eventsBeforeMs: deps.retention.eventsMs === null ? null : now - deps.retention.eventsMs,
        deadLettersBeforeMs: deps.retention.deadLettersMs === null ? null : now - deps.retention.deadLettersMs,
        fingerprintsBeforeMs: now - deps.windowMs,
        batch,
      });
      total.events += r.events;
      total.deadLetters += r.deadLetters;
      total.fingerprints += r.fingerprints;
      if (r.events < batch && r.deadLetters < batch && r.fingerprints < batch) break;
      await deps.clock.sleep(pauseMs, stop.signal);
    }
    if (total.events + total.deadLetters + total.fingerprints > 0) deps.onPruned?.(total);
    return total;
  };

  const arm = (): void => {
    timer = deps.clock.setTimer(() => {
      runOnce().catch((err: unknown) => { if (!stop.signal.aborted) deps.onError(err); })
        .finally(() => { if (!stop.signal.aborted) arm(); });
    }, intervalMs);
  };
  arm();

  return {
    runOnce,
    close() {
      stop.abort();
      if (timer !== null) deps.clock.clearTimer(timer);
    },
  };
}
