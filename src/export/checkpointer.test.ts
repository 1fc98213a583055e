import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkpointSignatureValid, CHECKPOINT_KIND, checkpointDue, checkpointMessage, signCheckpoint } from '../audit/checkpoint.js';
import type { Checkpoint } from '../audit/checkpoint.js';
import { appendCheckpointLine, parseCheckpointFile, readCheckpointFile } from '../audit/checkpoint-file.js';
import { fakeClock } from '../core/clock.js';
import Database from 'better-sqlite3';
import { appendRows, openStore, recordingLog, tempDir } from '../../test/support/export-harness.js';
import { waitFor } from '../../test/support/wait.js';
import type { CheckpointAlarm } from './checkpointer.js';
import { CONTRADICTED_KIND, startCheckpointer } from './checkpointer.js';
import { checkNewestCheckpoints } from './newest-checkpoints.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const cps = (path: string): Checkpoint[] => {
  const r = readCheckpointFile(path);
  assert.ok(r.ok);
  return r.checkpoints.map((c) => c.checkpoint);
};

describe('checkpoints (contract §20.2)', () => {
  const tmp = tempDir('svc-checkpoints-');
  after(() => tmp.remove());

  it('signs exactly the RFC 8785 bytes of {seq, hash, ts}; a changed claim or another key does not verify', () => {
    const claim = { seq: 42, hash: 'a'.repeat(64), ts: '2026-01-01T00:00:00.000Z' };
    assert.equal(checkpointMessage(claim).toString('utf8'), `{"hash":"${'a'.repeat(64)}","seq":42,"ts":"2026-01-01T00:00:00.000Z"}`);
    const cp = signCheckpoint(claim, privateKey);
    assert.equal(checkpointSignatureValid(cp, publicKey), true);
    assert.equal(checkpointSignatureValid({ ...cp, seq: 41 }, publicKey), false);
    assert.equal(checkpointSignatureValid({ ...cp, signature: 'nonsense' }, publicKey), false);
    assert.equal(checkpointSignatureValid(cp, generateKeyPairSync('ed25519').publicKey), false);
  });

  it('cadence: rows or seconds, whichever first; never when nothing is new', () => {
    const c = { everyRows: 10, everyMs: 60_000 };
    assert.equal(checkpointDue(c, 0, null), false);
    assert.equal(checkpointDue(c, 0, 10 * 60_000), false);
    assert.equal(checkpointDue(c, 1, null), true, 'the first one as soon as there is something');
    assert.equal(checkpointDue(c, 9, 59_999), false);
    assert.equal(checkpointDue(c, 10, 1), true);
    assert.equal(checkpointDue(c, 1, 60_000), true);
  });

  it('a torn last line is skipped; any other bad line is named', () => {
    const line = JSON.stringify(signCheckpoint({ seq: 1, hash: 'b'.repeat(64), ts: '2026-01-01T00:00:00.000Z' }, privateKey));
    const torn = parseCheckpointFile(`${line}\n{"seq":2,"ha`);
    assert.ok(torn.ok && torn.tornTail && torn.checkpoints.length === 1);
    assert.deepEqual(parseCheckpointFile(`${line}\n{"seq":2,"ha\n${line}\n`), { ok: false, line: 2, error: 'not JSON' });
    assert.deepEqual(parseCheckpointFile(`${line}\n{"seq":0}\n`), { ok: false, line: 2, error: 'seq is not a positive integer' });
  });

  it('the daemon side: at the cadence, into the file and the chain; nothing new, nothing signed; a final one at a clean stop; a torn line cut', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const store = await openStore(join(tmp.dir, 'svc.db'), clock);
    const filePath = join(tmp.dir, 'checkpoints.jsonl');
    appendFileSync(filePath, '{"seq":9,"torn');
    const logs: string[] = [];
    const signer = await startCheckpointer({ store, clock, key: privateKey, everyRows: 5, everySeconds: 60, filePath,
      log: (_level, event) => { logs.push(event); } });
    assert.deepEqual(logs, ['audit.checkpoint.torn-line-removed']);
    await signer.tick();
    assert.equal(readFileSync(filePath, 'utf8'), '', 'an empty chain: nothing to sign');
    await appendRows(store, 3);
    await signer.tick();
    assert.deepEqual(cps(filePath).map((c) => c.seq), [3], 'the first one at once');
    await appendRows(store, 3);
    await signer.tick();
    assert.equal(cps(filePath).length, 1, '3 new rows < everyRows and < everySeconds');
    await appendRows(store, 2);
    await signer.tick();
    assert.deepEqual(cps(filePath).map((c) => c.seq), [3, 9], 'everyRows reached (the checkpoint row itself not counted)');
    await clock.advanceAsync(120_000);
    await signer.tick();
    assert.equal(cps(filePath).length, 2, 'idle: only the checkpoint row since, nothing signed');
    await appendRows(store, 1);
    await clock.advanceAsync(60_000);
    // The timer's own look at the head, no tick() from here.
    await waitFor('the timer\'s checkpoint', () => cps(filePath).length === 3);
    await appendRows(store, 1);
    await signer.close(true);
    const all = cps(filePath);
    assert.equal(all.length, 4, 'a final checkpoint at a clean stop');
    const chain = await store.readAudit(0, 1000);
    for (const cp of all) {
      assert.equal(chain.find((r) => r.seq === cp.seq)?.hash, cp.hash);
      assert.equal(checkpointSignatureValid(cp, publicKey), true);
    }
    const rows = chain.filter((r) => r.kind === CHECKPOINT_KIND).map((r) => JSON.parse(r.dataText) as Checkpoint);
    assert.deepEqual(rows, all, 'each checkpoint is also a row of the chain (what the SIEM exporters ship)');
    await store.close();
  });

  it('a chain that lost the tail a checkpoint covers: alarm at start, nothing signed over it, signing again once it holds', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const filePath = join(tmp.dir, 'cut-checkpoints.jsonl');
    // The daemon signed seq 9 of a chain that now holds 5 rows: an older backup restored, a deleted tail.
    await appendCheckpointLine(filePath, signCheckpoint({ seq: 9, hash: 'a'.repeat(64), ts: '2025-12-31T23:00:00.000Z' }, privateKey));
    const store = await openStore(join(tmp.dir, 'after.db'), clock);
    await appendRows(store, 5);
    const { records, log } = recordingLog();
    const alarms: Array<CheckpointAlarm | null> = [];
    const signer = await startCheckpointer({ store, clock, key: privateKey, everyRows: 1, everySeconds: 60, filePath, log,
      onAlarm: (a) => alarms.push(a) });
    const raised = records.filter((r) => r.event === CONTRADICTED_KIND);
    assert.equal(raised.length, 1, 'raised at start, before anything is due');
    assert.equal(raised[0]?.level, 'error');
    assert.equal(raised[0]?.fields.message, `${filePath}: the checkpoint signed at ${cps(filePath)[0]?.ts} covers seq 9, but the chain ends at seq 5: `
      + 'rows after seq 5 were deleted; no checkpoint is signed over this chain');
    assert.deepEqual({ ...signer.status().alarm, since: undefined, message: undefined },
      { source: 'file', kind: 'missing-row', seq: 9, hash: cps(filePath)[0]?.hash, chainHash: null, signedAt: cps(filePath)[0]?.ts, headSeq: 5,
        since: undefined, message: undefined });
    assert.equal(alarms.length, 1);
    // Rows keep coming (the pager works); the checkpointer looks every second and signs nothing.
    for (let i = 0; i < 3; i++) {
      await appendRows(store, 2);
      await clock.advanceAsync(1_000); // the timer's own look
      await signer.tick();
    }
    assert.deepEqual(cps(filePath).map((c) => c.seq), [9], 'nothing signed over the contradicted chain');
    const rows = await store.readAudit(0, 100);
    assert.deepEqual(rows.filter((r) => r.kind === CONTRADICTED_KIND).map((r) => JSON.parse(r.dataText) as Record<string, unknown>),
      [{ source: 'file', kind: 'missing-row', seq: 9, hash: cps(filePath)[0]?.hash, chainHash: null, signedAt: cps(filePath)[0]?.ts, headSeq: 5 }],
      'one audit row (for the SIEM), not one per look');
    assert.equal(rows.filter((r) => r.kind === CHECKPOINT_KIND).length, 0);
    assert.equal(records.filter((r) => r.event === CONTRADICTED_KIND).length, 1, 'logged once, not every second');
    // The operator sets the file aside after a deliberate restore: signing resumes at the next look.
    renameSync(filePath, `${filePath}.before-restore`);
    await signer.tick();
    assert.equal(signer.status().alarm, null);
    assert.deepEqual(alarms.at(-1), null);
    assert.ok(records.some((r) => r.event === 'audit.checkpoint.resumed'));
    assert.equal(cps(filePath).length, 1, 'signed again');
    await signer.close(false);
    await store.close();
  });

  it('a chain re-hashed under a checkpoint row of its own: hash-differs, named by the chain\'s own row', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const path = join(tmp.dir, 'rehashed.db');
    const filePath = join(tmp.dir, 'rehashed-checkpoints.jsonl');
    let store = await openStore(path, clock);
    await appendRows(store, 4);
    assert.deepEqual(await checkNewestCheckpoints(store, filePath), { ok: true, checked: [], contradiction: null }, 'nothing signed yet, nothing contradicted');
    const first = await startCheckpointer({ store, clock, key: privateKey, everyRows: 1, everySeconds: 60, filePath, log: () => undefined });
    await first.tick();
    await first.close(false);
    await store.close();
    renameSync(filePath, `${filePath}.elsewhere`); // only the chain's own checkpoint row is left to hold it to
    const db = new Database(path);
    db.prepare('UPDATE audit SET hash = ? WHERE seq = 4').run('f'.repeat(64));
    db.close();
    store = await openStore(path, clock);
    const verdict = await checkNewestCheckpoints(store, filePath);
    assert.equal(verdict.ok, false);
    assert.deepEqual(verdict.checked, [{ source: 'store', seq: 4 }]);
    assert.equal(verdict.contradiction?.kind, 'hash-differs');
    assert.equal(verdict.contradiction?.chainHash, 'f'.repeat(64));
    assert.match(verdict.contradiction?.message ?? '', /^the chain's own checkpoint row: seq 4 has hash f{64} in the chain, but the checkpoint signed at .* says [0-9a-f]{64}: the chain was rewritten up to seq 4$/);
    const { records, log } = recordingLog();
    const signer = await startCheckpointer({ store, clock, key: privateKey, everyRows: 1, everySeconds: 60, filePath, log });
    await appendRows(store, 3);
    await signer.tick();
    assert.equal(signer.status().alarm?.kind, 'hash-differs');
    assert.equal(records.filter((r) => r.event === CONTRADICTED_KIND).length, 1);
    assert.equal((await store.readAudit(0, 100)).filter((r) => r.kind === CHECKPOINT_KIND).length, 1, 'only the one signed before');
    await signer.close(true);
    assert.equal((await store.readAudit(0, 100)).filter((r) => r.kind === CHECKPOINT_KIND).length, 1, 'not even at a clean stop');
    await store.close();
  });

});
