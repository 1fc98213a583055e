/**
 * Export of the hash-chained audit trail to SIEMs (the `audit.export` block): one loop per exporter
 * (exporter-loop.ts) reading the chain behind its own persisted cursor, and the back-pressure gate
 * (backpressure.ts) that pauses intake while the slowest exporter is too far behind.
 *
 * The backlog is head seq − the smallest cursor; it and the age of its oldest row are re-evaluated
 * after every loop tick and on notify() (the daemon calls it after each append). With no exporter
 * configured nothing runs and the gate stays open.
 */
import type { AuditConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { AuditMetrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import type { BackpressureGate, ExportLog } from './backpressure.js';
import { createBackpressure } from './backpressure.js';
import type { ExporterLoop, ExporterStatus } from './exporter-loop.js';
import { createExporterLoop } from './exporter-loop.js';
import type { AuditTransport } from './transport.js';
import { createTransport } from './create-transport.js';

export interface AuditExportDeps {
  store: Store;
  config: AuditConfig;
  metrics: AuditMetrics;
  clock: Clock;
  log: ExportLog;
  /** HOSTNAME of syslog messages (unless the exporter sets one) and `host` of Splunk HEC events. */
  hostname: string;
  /** PROCID of syslog messages. */
  pid: number;
  /** Transports by exporter id, used instead of the configured ones (tests). The pump closes them too. */
  transports?: Readonly<Record<string, AuditTransport>>;
}

export interface AuditBacklog {
  /** Rows appended but not yet acknowledged by every exporter. */
  rows: number;
  /** Timestamp (ms) of the oldest of them; null when there are none. */
  oldestTsMs: number | null;
}

export interface AuditExport {
  /** Starts the loops (no-op after the first call or after close()). */
  start(): void;
  /** Rows were appended: idle exporters read now rather than at their interval; back-pressure is re-evaluated. */
  notify(): void;
  /** Closed while the backlog is over its bound: the dispatcher waits on it before taking an event. */
  gate: BackpressureGate;
  /** The backlog as of the last evaluation. */
  backlog(): AuditBacklog;
  status(): ExporterStatus[];
  /** Stops the loops, aborts sends in flight, closes the transports, opens the gate. Idempotent. */
  close(): Promise<void>;
}

export function createAuditExport(deps: AuditExportDeps): AuditExport {
  const { store, config, metrics, clock, log } = deps;
  const ids = config.export.map((e) => e.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  // Two exporters sharing an id would share one cursor: the loader should have refused it.
  if (duplicate !== undefined) throw new Error(`audit exporter id ${duplicate} is configured twice`);

  const backpressure = createBackpressure({ config: config.backpressure, metrics, log });
  const controller = new AbortController();
  const transports = config.export.map((e) => deps.transports?.[e.id] ?? createTransport(e, deps));
  const loops: ExporterLoop[] = config.export.map((e, i) => createExporterLoop(e, transports[i] as AuditTransport, {
    store, metrics, clock, log, batch: config.batch, signal: controller.signal, onTick: () => tick(),
  }));

  let backlog: AuditBacklog = { rows: 0, oldestTsMs: null };
  /**
   * Head seq when the pump first looked. Back-pressure counts only rows appended since: a backlog
   * inherited from before the start (a new exporter backfilling the chain, an outage across a
   * restart) is shipped all the same, but must not stop pages for the hours a backfill can take.
   */
  let baseline: number | null = null;
  let oldest: { afterSeq: number; tsMs: number } | null = null;
  let running: Promise<unknown> | null = null;
  let closing: Promise<void> | null = null;
  let evaluating: Promise<void> | null = null;
  let evaluateAgain = false;

  const evaluateOnce = async (): Promise<void> => {
    const cursors = loops.map((l) => l.lastSeq());
    if (cursors.some((c) => c === null)) return; // a loop has not read its cursor yet
    const slowest = Math.min(...(cursors as number[]));
    const head = await store.auditHead();
    const rows = head === null ? 0 : Math.max(0, head.seq - slowest);
    baseline ??= head?.seq ?? 0;
    // The oldest waiting row changes only when the slowest cursor moves: read once per cursor.
    if (rows > 0 && oldest?.afterSeq !== slowest) {
      const [row] = await store.readAudit(slowest, 1);
      oldest = row === undefined ? null : { afterSeq: slowest, tsMs: Date.parse(row.ts) };
    }
    backlog = { rows, oldestTsMs: rows > 0 ? oldest?.tsMs ?? null : null };
    metrics.backpressureBacklogMs.set(backlog.oldestTsMs === null ? 0 : Math.max(0, clock.now() - backlog.oldestTsMs));
    backpressure.update(head === null ? 0 : Math.max(0, head.seq - Math.max(slowest, baseline)));
  };

  /**
   * Re-evaluates back-pressure, coalesced: notify() may come once per append, so at most one
   * evaluation runs and at most one more is queued behind it.
   */
  const evaluate = (): void => {
    if (running === null || closing !== null) return;
    if (evaluating !== null) {
      evaluateAgain = true;
      return;
    }
    evaluating = (async () => {
      do {
        evaluateAgain = false;
        await evaluateOnce();
      } while (evaluateAgain && closing === null);
    })().catch((err: unknown) => {
      if (closing === null) log('error', 'audit.backpressure.error', { error: errorText(err) });
    }).finally(() => { evaluating = null; });
  };

  const tick = (): void => {
    metrics.batchIntervalMs.set(Math.min(...loops.map((l) => l.intervalMs())));
    evaluate();
  };

  return {
    start: () => {
      if (running !== null || closing !== null || loops.length === 0) return;
      running = Promise.all(loops.map((l) => l.run()));
      tick();
    },
    notify: () => {
      if (running === null || closing !== null) return;
      for (const l of loops) l.notify();
      evaluate();
    },
    gate: backpressure.gate,
    backlog: () => backlog,
    status: () => loops.map((l) => l.status()),
    close: () => {
      closing ??= (async () => {
        controller.abort();
        await running;
        await evaluating;
        await Promise.allSettled(transports.map((t) => t.close()));
        backpressure.close();
      })();
      return closing;
    },
  };
}
