/**
 * Copies one store's contents into another, empty one (`svc store copy`, contract §16.7): events,
 * dead letters, the audit chain, the fingerprints still inside the idempotency window, and the SIEM
 * export cursors, with their seqs, timestamps and hashes. The chain is verified in the source before
 * anything is written and in the target afterwards, and the two heads must match; every imported
 * audit row is also checked as it goes in (transfer.ts). Claims are not copied: an event that was
 * being processed is waiting again in the copy.
 */
import type { VerifyResult } from '../audit/chain.js';
import { RuntimeError } from '../core/errors.js';
import type { Store } from './store.js';
import type { FingerprintKey } from './transfer.js';

export interface CopyReport {
  events: number;
  deadLetters: number;
  auditRows: number;
  fingerprints: number;
  cursors: number;
  before: VerifyResult;
  after: VerifyResult;
}

export interface CopyOptions {
  /** Fingerprints seen after `nowMs - windowMs` are still live and are copied. */
  nowMs: number;
  windowMs: number;
  /** Rows per import transaction (default 500); payloads keep it under ~`maxBatchBytes`. */
  batchRows?: number;
  maxBatchBytes?: number;
  progress?: (line: string) => void;
}

export async function copyStore(from: Store, to: Store, opts: CopyOptions): Promise<CopyReport> {
  const rows = opts.batchRows ?? 500;
  const maxBytes = opts.maxBatchBytes ?? 32 * 1024 * 1024;
  const say = opts.progress ?? ((): void => undefined);
  const before = await from.verifyAudit();
  if (!before.ok) {
    throw new RuntimeError('ESTORE_COPY', `the source's audit chain does not verify (first bad seq ${before.firstBadSeq}: ${before.problem}); nothing was copied`);
  }
  say(`source chain verified: ${before.checked} row(s), head ${before.headSeq} ${before.headHash ?? ''}`.trimEnd());
  if (!(await to.transfer.isEmpty())) {
    throw new RuntimeError('ESTORE_COPY', 'the target store is not empty (it holds events, dead letters or audit rows); nothing was copied');
  }

  let events = 0;
  for (let after = 0; ;) {
    const batch = await from.transfer.readEvents(after, rows);
    if (batch.length === 0) break;
    // Payloads may be large: split so one transaction carries at most ~maxBytes.
    let start = 0;
    let bytes = 0;
    for (let i = 0; i < batch.length; i++) {
      bytes += (batch[i]?.payloadText.length ?? 0);
      if (bytes > maxBytes && i > start) {
        await to.transfer.importRows({ events: batch.slice(start, i) });
        start = i;
        bytes = batch[i]?.payloadText.length ?? 0;
      }
    }
    await to.transfer.importRows({ events: batch.slice(start) });
    events += batch.length;
    after = (batch[batch.length - 1] as { seq: number }).seq;
  }
  say(`events: ${events}`);

  let deadLetters = 0;
  for (let after = 0; ;) {
    const batch = await from.transfer.readDeadLetters(after, rows);
    if (batch.length === 0) break;
    await to.transfer.importRows({ deadLetters: batch });
    deadLetters += batch.length;
    after = (batch[batch.length - 1] as { seq: number }).seq;
  }
  say(`dead letters: ${deadLetters}`);

  let auditRows = 0;
  for (let after = 0; ;) {
    const batch = (await from.readAudit(after, rows)).filter((r) => r.seq <= before.headSeq);
    if (batch.length === 0) break;
    await to.transfer.importRows({ audit: batch });
    auditRows += batch.length;
    after = (batch[batch.length - 1] as { seq: number }).seq;
  }
  say(`audit rows: ${auditRows}`);

  let fingerprints = 0;
  for (let after: FingerprintKey | null = null; ;) {
    const batch = await from.transfer.readFingerprints(opts.nowMs - opts.windowMs, after, rows);
    if (batch.length === 0) break;
    await to.transfer.importRows({ fingerprints: batch });
    fingerprints += batch.length;
    const last = batch[batch.length - 1] as { agentId: string; sourceId: string; fingerprint: string };
    after = [last.agentId, last.sourceId, last.fingerprint];
  }
  say(`live fingerprints: ${fingerprints}`);

  const cursors = await from.transfer.readExportCursors();
  if (cursors.length > 0) await to.transfer.importRows({ cursors });

  const after = await to.verifyAudit();
  if (!after.ok || after.headSeq !== before.headSeq || after.headHash !== before.headHash) {
    throw new RuntimeError('ESTORE_COPY', `the copied audit chain does not match the source (ok=${after.ok}, head ${after.headSeq} ${after.headHash ?? ''}, `
      + `source head ${before.headSeq} ${before.headHash ?? ''})`);
  }
  say(`target chain verified: ${after.checked} row(s), head ${after.headSeq} ${after.headHash ?? ''}`.trimEnd());
  return { events, deadLetters, auditRows, fingerprints, cursors: cursors.length, before, after };
}
