/**
 * One SIEM exporter's loop: read up to `batchMaxRows` rows after its persisted cursor, send them,
 * and only once the receiver acknowledged them move the cursor. A failed batch is sent again, the
 * same rows in the same order, after a back-off, until it goes through or the pump closes: rows are
 * never skipped, so delivery is at-least-once from the cursor.
 *
 * The interval between reads adapts to the load: a full batch reads again at once, a partial one
 * after `minIntervalMs`, an empty read doubles the wait up to `maxIntervalMs`. notify() cuts an idle
 * wait short, but never below `minIntervalMs` since the wait began, so rows appended one by one under
 * load still travel in batches.
 */
import type { AuditConfig, AuditExporterConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { AuditMetrics } from '../metrics/registry.js';
import { backoffMs } from '../core/backoff.js';
import type { Store } from '../store/store.js';
import type { AuditRow } from '../audit/audit-row.js';
import { parseStoredAuditRow } from '../audit/audit-row.js';
import type { ExportLog } from './backpressure.js';
import type { AuditTransport, SendResult } from './transport.js';

export interface ExporterStatus {
  id: string;
  type: AuditExporterConfig['type'];
  /** Seq of the last acknowledged row (the persisted cursor); 0 before the first. */
  lastSeq: number;
  /** Consecutive failed attempts of the batch now being delivered; 0 when the last attempt succeeded. */
  failures: number;
  /** Why the last attempt failed, while `failures` > 0; null otherwise. */
  lastError: string | null;
}

export interface LoopDeps {
  store: Store;
  metrics: AuditMetrics;
  clock: Clock;
  log: ExportLog;
  batch: AuditConfig['batch'];
  /** Aborted by the pump's close(): ends the loop, any wait and the send in flight. */
  signal: AbortSignal;
  /** After every read and every delivery outcome: the pump re-evaluates back-pressure and gauges. */
  onTick(): void;
}

export interface ExporterLoop {
  readonly id: string;
  /** The acknowledged cursor; null until it has been read from the store. */
  lastSeq(): number | null;
  intervalMs(): number;
  status(): ExporterStatus;
  /** Rows were appended: an idle wait ends early. */
  notify(): void;
  /** Runs until the signal aborts; never rejects. */
  run(): Promise<void>;
}

export function createExporterLoop(config: AuditExporterConfig, transport: AuditTransport, deps: LoopDeps): ExporterLoop {
  const { store, metrics, clock, log, signal } = deps;
  const { minIntervalMs } = deps.batch;
  const maxIntervalMs = Math.max(deps.batch.maxIntervalMs, minIntervalMs);
  const exporter = config.id;
  let cursor: number | null = null;
  let interval = minIntervalMs;
  let failures = 0;
  let lastError: string | null = null;
  /** Set by notify(), cleared just before a read: a read after it sees every row appended before it. */
  let notified = false;
  let wake: AbortController | null = null;

  /** Sleeps, swallowing the abort: the loop checks `signal` itself. */
  const pause = async (ms: number, on: AbortSignal): Promise<void> => {
    try {
      await clock.sleep(ms, on);
    } catch {
      // aborted: by close() or by notify()
    }
  };

  /** Idle wait of `ms`, ended early by notify() but lasting at least minIntervalMs. */
  const idle = async (ms: number): Promise<void> => {
    const started = clock.now();
    if (!notified) {
      wake = new AbortController();
      const onClose = (): void => wake?.abort();
      signal.addEventListener('abort', onClose, { once: true });
      await pause(ms, wake.signal);
      signal.removeEventListener('abort', onClose);
      wake = null;
    }
    const rest = Math.min(ms, minIntervalMs) - (clock.now() - started);
    if (rest > 0 && !signal.aborted) await pause(rest, signal);
  };

  const attempt = async (rows: readonly AuditRow[]): Promise<SendResult> => {
    try {
      return await transport.send(rows, signal);
    } catch (err) {
      // A transport should not throw; if one does, it is one more failed attempt, not a dead loop.
      return { ok: false, error: `transport error: ${errorText(err)}` };
    }
  };

  /** Sends `rows` until acknowledged (true) or closed (false). */
  const deliver = async (rows: readonly AuditRow[]): Promise<boolean> => {
    const first = (rows[0] as AuditRow).seq;
    const last = (rows[rows.length - 1] as AuditRow).seq;
    for (let n = 1; !signal.aborted; n++) {
      const result = await attempt(rows);
      if (signal.aborted) return false;
      if (result.ok) {
        await store.advanceExportCursor(exporter, last, clock.now());
        cursor = last;
        metrics.exportAcked.inc({ exporter }, rows.length);
        metrics.exportLastSeq.set({ exporter }, last);
        metrics.batchRows.observe(rows.length);
        if (failures > 0) log('info', 'audit.export.recovered', { exporter, attempts: n, firstSeq: first, lastSeq: last });
        failures = 0;
        lastError = null;
        return true;
      }
      failures = n;
      lastError = result.error;
      metrics.exportFailures.inc({ exporter });
      const waitMs = backoffMs(config.retry, n, result.retryAfterMs);
      log('warn', 'audit.export.failed', { exporter, error: result.error, attempt: n, retryInMs: waitMs,
        firstSeq: first, lastSeq: last });
      deps.onTick();
      await pause(waitMs, signal);
    }
    return false;
  };

  /** One read and what follows it; returns how long to wait before the next read. */
  const step = async (): Promise<number> => {
    if (cursor === null) {
      cursor = await store.exportCursor(exporter);
      metrics.exportLastSeq.set({ exporter }, cursor);
    }
    notified = false;
    const rows = (await store.readAudit(cursor, config.batchMaxRows)).map(parseStoredAuditRow);
    if (rows.length === 0) {
      interval = Math.min(maxIntervalMs, interval * 2);
      deps.onTick();
      return interval;
    }
    interval = minIntervalMs;
    deps.onTick();
    if (!await deliver(rows)) return 0;
    deps.onTick();
    return rows.length >= config.batchMaxRows ? 0 : minIntervalMs;
  };

  const run = async (): Promise<void> => {
    let errors = 0;
    while (!signal.aborted) {
      let waitMs: number;
      try {
        waitMs = await step();
        errors = 0;
      } catch (err) {
        // The store failed (disk, a closed handle during shutdown): the same rows are read again.
        if (signal.aborted) break;
        errors += 1;
        waitMs = backoffMs(config.retry, errors);
        log('error', 'audit.export.error', { exporter, error: errorText(err), retryInMs: waitMs });
        await pause(waitMs, signal);
        continue;
      }
      if (waitMs > 0 && !signal.aborted) await idle(waitMs);
    }
  };

  return {
    id: exporter,
    lastSeq: () => cursor,
    intervalMs: () => interval,
    status: () => ({ id: exporter, type: config.type, lastSeq: cursor ?? 0, failures, lastError }),
    notify: () => {
      notified = true;
      wake?.abort();
    },
    run,
  };
}
