/**
 * Retention (contract §10.5): every `intervalMs`, prunes in small batches — processed and
 * dead-lettered events and dead letters past their configured age, and idempotency fingerprints past
 * their window — one batch per store call with a pause between, so the writer is never held long and
 * a request never waits behind a prune. The audit chain is never pruned.
 */
import type { RetentionSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { every } from '../core/every.js';
import type { Store } from '../store/store.js';

export interface Retention {
  /** Prunes until a batch comes back short (tests; the timer does the same). */
  runOnce(): Promise<{ events: number; deadLetters: number; fingerprints: number }>;
  /** Stops the loop; resolves once a prune in flight has ended (the store may be closed after it). */
  close(): Promise<void>;
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

  const prune = async (signal?: AbortSignal): Promise<{ events: number; deadLetters: number; fingerprints: number }> => {
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
      await deps.clock.sleep(pauseMs, signal);
    }
    if (total.events + total.deadLetters + total.fingerprints > 0) deps.onPruned?.(total);
    return total;
  };

  const loop = every({ clock: deps.clock, intervalMs, run: async (signal) => { await prune(signal); }, onError: deps.onError });

  return {
    runOnce: () => prune(),
    close: () => loop.close(),
  };
}
