import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Store } from '../store/store.js';
import { notifyingStore } from './notifying-store.js';

it('passes every argument on (a console replay keeps its via and actor) and tells the exporter after the write', async () => {
  const seen: unknown[][] = [];
  let notified = 0;
  const store = {
    replayDeadLetters: (...args: unknown[]) => {
      seen.push(args);
      assert.equal(notified, 0, 'not told before the write resolves');
      return Promise.resolve({ replayed: ['dl-1'], missing: [] });
    },
  } as unknown as Store;
  const wrapped = notifyingStore(store, () => { notified += 1; });
  assert.deepEqual(await wrapped.replayDeadLetters({ ids: ['dl-1'] }, 'alice@example.com', 7, 'console'), { replayed: ['dl-1'], missing: [] });
  assert.deepEqual(seen, [[{ ids: ['dl-1'] }, 'alice@example.com', 7, 'console']]);
  assert.equal(notified, 1);
});
