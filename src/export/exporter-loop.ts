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
 *
 * A chain that no longer holds what was sent is an alarm, never silence. When the chain's head is
 * behind the cursor (its newest rows were deleted: new rows then reuse their seqs), or the row after
 * the cursor does not link to the last row sent, the loop logs `audit.export.chain-behind` at error
 * level, counts it (`svc_audit_export_chain_behind_total`), latches `alarm` in /status, and goes back
 * to the newest row it can vouch for: the highest seq whose stored hash is the one it sent, among the
 * last RECENT_ROWS rows it sent (else the head). Rows from there on are sent again, so the SIEM
 * receives the rows that reuse a seq beside the ones it had: the evidence, not a gap. (The persisted
 * cursor only moves forward; after a restart the same check finds the head behind it again.)
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
  /** The last time the chain was found behind what this exporter had sent (see the header); null if never. */
  alarm: string | null;
}

/** How many of the rows last sent the loop remembers (seq and hash) to find where a changed chain still agrees. */
const RECENT_ROWS = 1000;

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
  let alarm: string | null = null;
  /** Seq and hash of the last rows acknowledged, oldest first, at most RECENT_ROWS. */
  let recent: Array<{ seq: number; hash: string }> = [];
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
        recent.push(...rows.slice(-RECENT_ROWS).map((r) => ({ seq: r.seq, hash: r.hash })));
        if (recent.length > RECENT_ROWS) recent = recent.slice(-RECENT_ROWS);
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

  /**
   * The chain no longer holds what was sent up to `at`: alarm, and go back to the newest row sent
   * whose stored hash still matches (at most `headSeq`), else to `headSeq`. Returns the new cursor.
   */
  const chainBehind = async (at: number, headSeq: number, problem: string): Promise<number> => {
    const sent = recent.filter((r) => r.seq <= headSeq);
    let resumeAfter = headSeq;
    if (sent.length > 0) {
      const first = (sent[0] as { seq: number }).seq;
      const stored = new Map((await store.readAudit(first - 1, headSeq - first + 1)).map((r) => [r.seq, r.hash]));
      const agree = [...sent].reverse().find((r) => stored.get(r.seq) === r.hash);
      resumeAfter = agree?.seq ?? first - 1;
    }
    recent = recent.filter((r) => r.seq <= resumeAfter);
    const text = `${problem} (cursor ${at}, head ${headSeq}); sending again from seq ${resumeAfter + 1}`;
    alarm = `${new Date(clock.now()).toISOString()}: ${text}`;
    metrics.exportChainBehind.inc({ exporter });
    metrics.exportLastSeq.set({ exporter }, resumeAfter);
    log('error', 'audit.export.chain-behind', { exporter, problem, cursor: at, headSeq, resendFromSeq: resumeAfter + 1 });
    cursor = resumeAfter;
    return resumeAfter;
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
      const headSeq = (await store.auditHead())?.seq ?? 0;
      if (headSeq < cursor) {
        await chainBehind(cursor, headSeq, 'the audit chain\'s head is behind the rows this exporter sent');
        return 0;
      }
      interval = Math.min(maxIntervalMs, interval * 2);
      deps.onTick();
      return interval;
    }
    const lastSent = recent[recent.length - 1];
    const next = rows[0] as AuditRow;
    if (lastSent !== undefined && lastSent.seq === cursor && next.seq === cursor + 1 && next.prevHash !== lastSent.hash) {
      // Rows sent were changed: send again from where they agree. (If none was, the link after the
      // cursor is broken in the store itself, verify's finding: the rows are sent as they are.)
      if (await chainBehind(cursor, cursor, 'the row after this exporter\'s cursor does not link to the last row it sent') < next.seq - 1) return 0;
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
    status: () => ({ id: exporter, type: config.type, lastSeq: cursor ?? 0, failures, lastError, alarm }),
    notify: () => {
      notified = true;
      wake?.abort();
    },
    run,
  };
}
