/**
 * Signs the chain head at the configured cadence (contract §20.2) and sends each checkpoint outside
 * the store: first a line of `$SVC_HOME/checkpoints.jsonl` (fsynced), then an audit row of kind
 * `audit.checkpoint`, which every SIEM exporter ships like any other row (at least once, in order,
 * behind its cursor). So a checkpoint a SIEM holds is also on the daemon's disk, and one on disk
 * that never reached the store (a crash between the two) is simply one more to check.
 *
 * The head is looked at every second (or every `everySeconds`, if shorter): with `everyRows` the
 * checkpoint comes within a second of the row count being reached, and an idle chain — nothing
 * since the last checkpoint's own row — is never signed again. It runs where the SIEM exporters
 * run: on the replica holding the leader lease (daemon/leader-duties.ts).
 */
import type { KeyObject } from 'node:crypto';
import type { CheckpointContradiction } from '../audit/check-checkpoints.js';
import type { Checkpoint } from '../audit/checkpoint.js';
import { CHECKPOINT_KIND, checkpointDue, signCheckpoint } from '../audit/checkpoint.js';
import { appendCheckpointLine, repairCheckpointFile } from '../audit/checkpoint-file.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { Store } from '../store/store.js';
import type { ExportLog } from './backpressure.js';
import { checkNewestCheckpoints } from './newest-checkpoints.js';

/** Kind of the audit row that records a contradiction found (once per contradiction and start). */
export const CONTRADICTED_KIND = 'audit.checkpoint.contradicted';

/** A contradiction the checkpointer found, and since when it refuses to sign. */
export interface CheckpointAlarm extends CheckpointContradiction {
  since: string;
}

export interface CheckpointerStatus {
  /** The seq and time of the last checkpoint this leader knows of (0 and null before the first). */
  lastSeq: number;
  lastTs: string | null;
  /** Set while the chain contradicts a checkpoint: nothing is signed. */
  alarm: CheckpointAlarm | null;
}

/** Longest wait between two looks at the head. */
const MAX_LOOK_MS = 1000;

export interface CheckpointerDeps {
  store: Store;
  clock: Clock;
  key: KeyObject;
  everyRows: number;
  everySeconds: number;
  /** `$SVC_HOME/checkpoints.jsonl`. */
  filePath: string;
  log: ExportLog;
  /** A checkpoint row was appended (wakes the exporters). */
  onCheckpoint?(cp: Checkpoint): void;
  /** The alarm was raised (or changed), or cleared (null). */
  onAlarm?(alarm: CheckpointAlarm | null): void;
}

export interface Checkpointer {
  /** Looks at the head now and signs if due; resolves when done (tests, shutdown). */
  tick(): Promise<void>;
  /**
   * Stops. `final`: a clean shutdown of the leader signs the head once more if anything is new, so
   * the tail a stopped daemon leaves — `runtime.stopped` included — is covered.
   */
  close(final: boolean): Promise<void>;
  status(): CheckpointerStatus;
}

export async function startCheckpointer(deps: CheckpointerDeps): Promise<Checkpointer> {
  const { store, clock, log } = deps;
  if (repairCheckpointFile(deps.filePath)) log('warn', 'audit.checkpoint.torn-line-removed', { file: deps.filePath });
  // Where the last checkpoint stands: the seq it signed, its own row, and when.
  const [last] = (await store.listAudit({ limit: 1, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, { kind: CHECKPOINT_KIND })).items;
  const signed = last?.dataText ? (JSON.parse(last.dataText) as { seq?: unknown }).seq : undefined;
  let lastSignedSeq = typeof signed === 'number' ? signed : 0;
  let lastRowSeq = last?.seq ?? 0;
  let lastMs: number | null = last === undefined ? null : Date.parse(last.ts);
  let alarm: CheckpointAlarm | null = null;
  /**
   * Rows the last checkpoint does not cover, its own row aside. Counted from the seq it signed, not
   * from its row: rows appended while it was being written (between the signing and its row) count.
   */
  const uncovered = (headSeq: number): number => headSeq - lastSignedSeq - (lastRowSeq > lastSignedSeq ? 1 : 0);
  const cadence = { everyRows: deps.everyRows, everyMs: deps.everySeconds * 1000 };
  let running: Promise<void> | null = null;
  let timer: TimerHandle | null = null;
  let closed = false;

  /** Whether the chain still holds the newest checkpoints; raises, keeps or clears the alarm. */
  const consistent = async (): Promise<boolean> => {
    const { contradiction } = await checkNewestCheckpoints(store, deps.filePath);
    if (contradiction === null) {
      if (alarm !== null) {
        log('info', 'audit.checkpoint.resumed', { seq: alarm.seq, source: alarm.source, since: alarm.since });
        alarm = null;
        deps.onAlarm?.(null);
      }
      return true;
    }
    // One checkpoint contradicted is one alarm: as the chain grows again past a deleted tail, "missing"
    // becomes "another hash" — the details follow, the alarm is not raised again.
    if (alarm !== null && alarm.source === contradiction.source && alarm.seq === contradiction.seq && alarm.hash === contradiction.hash) {
      alarm = { ...contradiction, since: alarm.since };
    } else {
      const now = clock.now();
      alarm = { ...contradiction, since: isoTs(now) };
      log('error', CONTRADICTED_KIND, { source: contradiction.source, kind: contradiction.kind, seq: contradiction.seq,
        headSeq: contradiction.headSeq, message: `${contradiction.message}; no checkpoint is signed over this chain` });
      deps.onAlarm?.(alarm);
      // In the chain too, so the SIEM hears of it; the row is not signed over either.
      await store.appendAudit({ kind: CONTRADICTED_KIND, actor: 'svc', agentId: null, data: { source: contradiction.source,
        kind: contradiction.kind, seq: contradiction.seq, hash: contradiction.hash, chainHash: contradiction.chainHash,
        signedAt: contradiction.signedAt, headSeq: contradiction.headSeq } }, now);
    }
    return false;
  };

  const once = async (force: boolean): Promise<void> => {
    const head = await store.auditHead();
    if (head === null) return;
    const now = clock.now();
    const rowsSince = uncovered(head.seq);
    // Under an alarm, looked at on every tick: signing resumes as soon as the chain holds again.
    const due = force ? rowsSince > 0 : checkpointDue(cadence, rowsSince, lastMs === null ? null : now - lastMs);
    if (!due && alarm === null) return;
    if (!(await consistent()) || !due) return;
    const cp = signCheckpoint({ seq: head.seq, hash: head.hash, ts: isoTs(now) }, deps.key);
    await appendCheckpointLine(deps.filePath, cp);
    const row = await store.appendAudit({ kind: CHECKPOINT_KIND, actor: 'svc', agentId: null, data: { ...cp } }, now);
    lastSignedSeq = cp.seq;
    lastRowSeq = row.seq;
    lastMs = now;
    deps.onCheckpoint?.(cp);
  };
  const tick = (force = false): Promise<void> => {
    running ??= once(force).catch((err: unknown) => {
      log('error', 'audit.checkpoint.failed', { error: errorText(err) });
    }).finally(() => { running = null; });
    return running;
  };
  const arm = (): void => {
    if (closed) return;
    timer = clock.setTimer(() => { void tick().finally(arm); }, Math.min(MAX_LOOK_MS, cadence.everyMs));
  };
  // At start, before anything is signed: a daemon started on a contradicted chain says so at once.
  await consistent().catch((err: unknown) => { log('error', 'audit.checkpoint.failed', { error: errorText(err) }); });
  arm();

  return {
    tick: () => tick(),
    status: () => ({ lastSeq: lastSignedSeq, lastTs: lastMs === null ? null : isoTs(lastMs), alarm }),
    async close(final) {
      closed = true;
      if (timer !== null) clock.clearTimer(timer);
      await running;
      if (final) await tick(true);
    },
  };
}
