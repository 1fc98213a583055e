/**
 * The daemon holds its chain to the checkpoints it signed (contract §20.2): the newest checkpoint of
 * `$SVC_HOME/checkpoints.jsonl` and the newest of the chain's own `audit.checkpoint` rows must each
 * still be in the chain — its `seq` there, with its `hash`. A chain whose tail was deleted, or that was
 * rewritten and re-hashed under a checkpoint, fails here although it verifies on its own. The
 * checkpointer looks before it signs (it never signs over a contradicted chain) and `verify=1` looks
 * on every request, so `svc audit --verify` keeps saying so. A few reads: the file's last 64 KiB, one
 * row by kind, two rows by seq.
 */
import type { CheckpointContradiction, CheckpointSource, NewestCheckpointsVerdict } from '../audit/check-checkpoints.js';
import { claimContradiction } from '../audit/check-checkpoints.js';
import type { CheckpointClaim } from '../audit/checkpoint.js';
import { CHECKPOINT_KIND, parseCheckpoint } from '../audit/checkpoint.js';
import { readNewestCheckpoint } from '../audit/checkpoint-file.js';
import type { Store } from '../store/store.js';

/** The newest checkpoint row of the chain, as its data says (null: none, or data that is not a checkpoint). */
async function newestCheckpointRow(store: Store): Promise<CheckpointClaim | null> {
  const [row] = (await store.listAudit({ limit: 1, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, { kind: CHECKPOINT_KIND })).items;
  if (row?.dataText === undefined || row.dataText === null) return null;
  try {
    const parsed = parseCheckpoint(JSON.parse(row.dataText));
    return parsed.ok ? parsed.checkpoint : null;
  } catch {
    return null; // a corrupt row: the chain's own verification names it
  }
}

export async function checkNewestCheckpoints(store: Store, filePath: string): Promise<NewestCheckpointsVerdict> {
  const claims: Array<{ source: CheckpointSource; claim: CheckpointClaim }> = [];
  const fromFile = readNewestCheckpoint(filePath);
  if (fromFile !== null) claims.push({ source: 'file', claim: fromFile });
  const fromStore = await newestCheckpointRow(store);
  if (fromStore !== null) claims.push({ source: 'store', claim: fromStore });
  if (claims.length === 0) return { ok: true, checked: [], contradiction: null };
  const headSeq = (await store.auditHead())?.seq ?? 0;
  let contradiction: CheckpointContradiction | null = null;
  for (const { source, claim } of claims) {
    const [row] = await store.readAudit(claim.seq - 1, 1);
    const chainHash = row !== undefined && row.seq === claim.seq ? row.hash : null;
    const contradicted = claimContradiction(claim, chainHash, headSeq);
    if (contradicted !== null) {
      contradiction = { source, kind: contradicted.kind, seq: claim.seq, hash: claim.hash, chainHash, signedAt: claim.ts, headSeq,
        message: `${source === 'file' ? filePath : 'the chain\'s own checkpoint row'}: ${contradicted.why}` };
      break;
    }
  }
  return { ok: contradiction === null, checked: claims.map((c) => ({ source: c.source, seq: c.claim.seq })), contradiction };
}
