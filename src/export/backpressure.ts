/**
 * Audit back-pressure: a gate the dispatcher waits on before it takes an event. It closes when the
 * rows not yet acknowledged by the slowest SIEM exporter pass `maxBacklogRows`, and opens again only
 * once the backlog is down to `resumeBelowRows` (default half the bound): the gap is hysteresis, so
 * intake does not flap on and off around one number. Rows are never dropped; intake waits instead.
 */
import type { AuditConfig } from '../config/schema.js';
import type { LogFields, LogLevel } from '../core/log.js';
import type { AuditMetrics } from '../metrics/registry.js';

export interface BackpressureGate {
  /** True while intake should pause. */
  active(): boolean;
  /** Resolves at once while open, else when the gate opens; rejects with `signal.reason` on abort. */
  whenOpen(signal: AbortSignal): Promise<void>;
}

export type ExportLog = (level: LogLevel, event: string, fields: LogFields) => void;

/** The gate plus the handle its owner (the export pump) drives it with. */
export interface BackpressureControl {
  gate: BackpressureGate;
  /** Feeds the current backlog (rows); engages or releases the gate. */
  update(backlogRows: number): void;
  /** Opens the gate for good and releases every waiter: nothing exports any more, so nothing may wait on it. */
  close(): void;
}

export interface BackpressureDeps {
  config: AuditConfig['backpressure'];
  metrics: Pick<AuditMetrics, 'backpressureActive' | 'backpressurePaused'>;
  log: ExportLog;
}

export function createBackpressure(deps: BackpressureDeps): BackpressureControl {
  const { metrics, log } = deps;
  const maxBacklogRows = deps.config.maxBacklogRows;
  // A resume mark above the bound would make the gate reopen while still over it: capped.
  const resumeBelowRows = Math.min(deps.config.resumeBelowRows ?? Math.floor(maxBacklogRows / 2), maxBacklogRows);
  let active = false;
  let closed = false;
  const waiters = new Set<() => void>();

  const open = (): void => {
    active = false;
    metrics.backpressureActive.set(0);
    const released = [...waiters];
    waiters.clear();
    for (const release of released) release();
  };

  return {
    gate: {
      active: () => active,
      whenOpen: (signal) => {
        if (!active) return Promise.resolve();
        if (signal.aborted) return Promise.reject(signal.reason as Error);
        return new Promise<void>((resolve, reject) => {
          const onAbort = (): void => {
            waiters.delete(release);
            reject(signal.reason as Error);
          };
          const release = (): void => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          };
          waiters.add(release);
          signal.addEventListener('abort', onAbort, { once: true });
        });
      },
    },
    update: (backlogRows) => {
      if (closed) return;
      if (!active && backlogRows > maxBacklogRows) {
        active = true;
        metrics.backpressureActive.set(1);
        metrics.backpressurePaused.inc();
        log('warn', 'audit.backpressure', { state: 'engaged', backlogRows, maxBacklogRows });
      } else if (active && backlogRows <= resumeBelowRows) {
        open();
        log('info', 'audit.backpressure', { state: 'released', backlogRows, resumeBelowRows });
      }
    },
    close: () => {
      if (closed) return;
      closed = true;
      if (active) open();
    },
  };
}
