/**
 * What the story of an event claims about the chain (contract §20.3), over a real SQLite store whose
 * rows are changed in place behind its back, as an attacker with the file would: a row of the story,
 * a later row, a later row re-hashed on its own. None is ever called intact, however long ago the
 * chain was last verified whole; the answer says what was checked, from which seq, and when.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sha256Hex, storedRowText } from '../audit/chain.js';
import type { StoredAuditRow } from '../audit/audit-row.js';
import { fakeClock } from '../core/clock.js';
import { createChainWatermark } from '../store/chain-watermark.js';
import type { Store } from '../store/store.js';
import { openStore, tempDir } from '../../test/support/export-harness.js';
import { checkStoryChain, storyJson, storyVerdict } from './event-story.js';

const EVENT = '0b0e3a52-6c1e-4c59-9d53-2f0c2a4f8a11';

interface StoryAnswer {
  verified: boolean;
  verification: { problems: Array<{ seq: number; problem: string }>; chainIntactThroughSeq: number; chainProblem: { seq: number; kind: string } | null;
    checkedFromSeq: number; checkedAt: string; fullCheckAt: string | null };
}

describe('the story of an event: what it claims about the chain', () => {
  const tmp = tempDir('svc-story-');
  after(() => tmp.remove());

  /** A chain of 7 rows: the event's at seq 3 and 4, others before and after it. */
  async function chain(name: string): Promise<{ store: Store; path: string; clock: ReturnType<typeof fakeClock> }> {
    const clock = fakeClock(Date.UTC(2026, 10, 25, 3, 0, 0));
    const path = join(tmp.dir, `${name}.db`);
    const store = await openStore(path, clock);
    const rows: Array<[string, Record<string, unknown>]> = [['runtime.started', { pid: 1 }], ['test.other', { n: 2 }],
      ['event.accepted', { eventId: EVENT, sourceId: 'am' }], ['triage.decision', { eventId: EVENT, severity: 'P1' }],
      ['test.other', { n: 5 }], ['test.other', { n: 6 }], ['test.other', { n: 7 }]];
    for (const [kind, data] of rows) await store.appendAudit({ kind, actor: 'svc', agentId: null, data }, clock.now());
    return { store, path, clock };
  }

  /** Changes row `seq` in place from outside the store; `rehash`: its own hash recomputed too (the link to it then breaks). */
  function tamper(path: string, seq: number, data: string, rehash = false): () => void {
    const db = new Database(path);
    try {
      const row = db.prepare('SELECT seq, ts, kind, actor, agent_id AS agentId, data AS dataText, prev_hash AS prevHash, hash FROM audit WHERE seq = ?')
        .get(seq) as StoredAuditRow;
      const hash = rehash ? sha256Hex(`${row.prevHash}\n${storedRowText({ ...row, dataText: data })}`) : row.hash;
      db.prepare('UPDATE audit SET data = ?, hash = ? WHERE seq = ?').run(data, hash, seq);
      return () => {
        const back = new Database(path);
        back.prepare('UPDATE audit SET data = ?, hash = ? WHERE seq = ?').run(row.dataText, row.hash, seq);
        back.close();
      };
    } finally {
      db.close();
    }
  }

  it('a later row or a story row changed in place after the whole chain was verified: never intact', async () => {
    const { store, path, clock } = await chain('later');
    const watermark = createChainWatermark(store, clock);
    const story = async (): Promise<StoryAnswer> => {
      const rows = await store.eventStory(EVENT);
      return JSON.parse(storyJson(EVENT, rows, await checkStoryChain(rows, watermark))) as StoryAnswer;
    };
    const intact = await story();
    assert.equal(intact.verified, true);
    assert.deepEqual(intact.verification, { problems: [], chainIntactThroughSeq: 7, chainProblem: null, checkedFromSeq: 3,
      checkedAt: '2026-11-25T03:00:00.000Z', fullCheckAt: '2026-11-25T03:00:00.000Z' });

    // A row after the story's, its data changed (hash kept). The chain was verified whole before.
    clock.advance(60_000);
    let restore = tamper(path, 6, '{"n":66}');
    const later = await story();
    assert.equal(later.verified, false);
    assert.deepEqual(later.verification.chainProblem, { seq: 6, kind: 'hash-mismatch' });
    assert.equal(later.verification.chainIntactThroughSeq, 5);
    assert.equal(later.verification.checkedAt, '2026-11-25T03:01:00.000Z', 'checked when asked');
    assert.equal(later.verification.fullCheckAt, '2026-11-25T03:00:00.000Z');
    restore();
    assert.equal((await story()).verified, true, 'put back: intact again');

    // Re-hashed on its own: it hashes, but the row after it no longer links to it.
    restore = tamper(path, 5, '{"n":55}', true);
    assert.deepEqual((await story()).verification.chainProblem, { seq: 6, kind: 'prev-link-mismatch' });
    restore();

    // A row of the story itself.
    restore = tamper(path, 4, '{"eventId":"0b0e3a52-6c1e-4c59-9d53-2f0c2a4f8a11","severity":"P3"}');
    const own = await story();
    assert.equal(own.verified, false);
    assert.deepEqual(own.verification.problems, [{ seq: 4, problem: 'hash-mismatch' }]);
    restore();

    // A row before the story is what the whole-chain check at fullCheckAt vouches for, and the answer says so.
    restore = tamper(path, 1, '{"pid":2}');
    const before = await story();
    assert.equal(before.verified, true);
    assert.equal(before.verification.checkedFromSeq, 3);
    assert.equal(before.verification.fullCheckAt, '2026-11-25T03:00:00.000Z');
    restore();
    await store.close();
  });

  it('a tail longer than the event loop takes: checked by the store\'s verifier, with the same verdict', async () => {
    const { store, path, clock } = await chain('long');
    const watermark = createChainWatermark(store, clock, { smallTailRows: 2 });
    const verdict = async (): Promise<boolean> => {
      const rows = await store.eventStory(EVENT);
      return storyVerdict(rows, await checkStoryChain(rows, watermark)).verified;
    };
    assert.equal(await verdict(), true);
    const restore = tamper(path, 7, '{"n":77}');
    assert.equal(await verdict(), false);
    restore();
    assert.equal(await verdict(), true);
    await store.close();
  });
});
