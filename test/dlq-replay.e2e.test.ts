/**
 * `svc dlq replay --all` of 30,000 dead letters against the built daemon and CLI: every letter is
 * replayed, in chunks (each its own transaction), and the CLI says so with exit 0 — it used to give up
 * with "answer too large" above ~27,000 ids although everything had been replayed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fillDeadLetters, queryStore } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';

const LETTERS = 30_000;

describe('svc dlq replay --all of a large dead-letter list', () => {
  const t = tempEnv();
  let dir = '';
  after(async () => {
    if (dir !== '') await runSvc(['down'], { env: t.env, cwd: dir });
    t.cleanup();
  });

  it('replays all 30,000 and answers small: the count, the first 20 ids and how many more; exit 0', async () => {
    const agent = await scaffoldAgent(t);
    dir = agent.dir;
    await fillDeadLetters(join(t.home, 'svc.db'), LETTERS, readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8'));
    const first = queryStore<{ id: string }>(t.home, 'SELECT id FROM dead_letters ORDER BY seq LIMIT 20').map((r) => r.id);
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: dir });
    assert.equal(up.code, 0, up.stderr);

    const replay = await runSvc(['dlq', 'replay', '--all'], { env: t.env, cwd: dir, timeoutMs: 300_000 });
    assert.equal(replay.stderr, '');
    assert.equal(replay.code, 0);
    assert.equal(replay.stdout, `svc dlq replay: replayed ${LETTERS} dead letter(s): ${first.join(', ')} and ${LETTERS - 20} more\n`);
    assert.equal(queryStore<{ n: number }>(t.home, 'SELECT count(*) AS n FROM dead_letters WHERE replayed_ms IS NULL')[0]?.n, 0);
    const rows = queryStore<{ n: number; letters: number }>(t.home,
      "SELECT count(*) AS n, count(DISTINCT json_extract(data, '$.deadLetterId')) AS letters FROM audit WHERE kind = 'dlq.replayed'")[0];
    assert.deepEqual([rows?.n, rows?.letters], [LETTERS, LETTERS], 'one dlq.replayed row per letter');

    const again = await runSvc(['dlq', 'replay', '--all', '--json'], { env: t.env, cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { replayed: [], missing: [], replayedCount: 0, missingCount: 0 });
  });
});
