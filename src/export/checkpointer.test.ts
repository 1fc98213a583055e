import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkpointSignatureValid, CHECKPOINT_KIND, checkpointDue, checkpointMessage, signCheckpoint } from '../audit/checkpoint.js';
import type { Checkpoint } from '../audit/checkpoint.js';
import { parseCheckpointFile, readCheckpointFile } from '../audit/checkpoint-file.js';
import { fakeClock } from '../core/clock.js';
import { appendRows, openStore, tempDir } from '../../test/support/export-harness.js';
import { waitFor } from '../../test/support/wait.js';
import { startCheckpointer } from './checkpointer.js';

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
});
