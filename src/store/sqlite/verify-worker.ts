/**
 * Worker-thread entry of the SQLite chain verifier (sqlite-chain-verifier.ts). Each job is one
 * slice of the chain, `afterSeq < seq <= throughSeq`, read through the worker's own read-only
 * connection in chunks and checked with the fast stored-row hash; the reply is the slice's
 * `SegmentResult`. Loaded only inside a worker: running it is the point of importing it.
 */
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { errorText } from '../../core/errors.js';
import type { AuditReader } from './audit-reader.js';
import { openAuditReader } from './audit-reader.js';
import type { SegmentResult } from '../../audit/chain.js';
import { createSegmentVerifier, storedRowHashMatches } from '../../audit/chain.js';

export interface VerifyWorkerData {
  path: string;
  chunkRows: number;
}
export interface VerifyJob {
  id: number;
  afterSeq: number;
  throughSeq: number;
}
export type VerifyReply =
  | { id: number; ok: true; result: SegmentResult }
  | { id: number; ok: false; error: string };

function verifySlice(reader: AuditReader, job: VerifyJob, chunkRows: number): SegmentResult {
  const recheck = (seq: number): boolean => {
    const row = reader.row(seq);
    return row !== undefined && storedRowHashMatches(row);
  };
  const v = createSegmentVerifier(job.afterSeq, recheck);
  let afterSeq = job.afterSeq;
  for (;;) {
    const rows = reader.hashRows(afterSeq, job.throughSeq, chunkRows);
    for (const [seq, prevHash, hash, hashInput] of rows) {
      if (!v.push(seq, prevHash, hash, hashInput)) return v.result();
    }
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < chunkRows) return v.result();
    afterSeq = last[0];
  }
}

/**
 * Linux: lowers this thread's CPU priority (nice 10; /proc/thread-self names its kernel thread id),
 * so when cores are short the scheduler runs the main thread — the control plane's event loop —
 * first. Idle cores still go to the verification. Elsewhere, or if refused: normal priority.
 */
function deferToMainThread(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not Linux, or not permitted.
  }
}

const port = parentPort;
if (port !== null) {
  deferToMainThread();
  const { path, chunkRows } = (workerData as { data: VerifyWorkerData }).data;
  // Opened on the first job, so a failure to open is that job's error reply.
  let reader: AuditReader | null = null;
  port.on('message', (job: VerifyJob) => {
    let reply: VerifyReply;
    try {
      reader ??= openAuditReader(path);
      reply = { id: job.id, ok: true, result: verifySlice(reader, job, chunkRows) };
    } catch (err) {
      reply = { id: job.id, ok: false, error: errorText(err) };
    }
    port.postMessage(reply);
  });
}
