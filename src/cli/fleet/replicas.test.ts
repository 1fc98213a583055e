import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onePerStore } from './replicas.js';

describe('onePerStore', () => {
  it('a row of a store shared by two hosts is listed once, under both names; separate stores and hosts without an id keep theirs', () => {
    const rows = [
      { host: 'eu-2', item: { id: 'e1' } }, { host: 'eu-1', item: { id: 'e1' } },
      { host: 'eu-1', item: { id: 'e2' } }, { host: 'us-1', item: { id: 'e1' } },
      { host: 'old', item: { id: 'e1' } }, { host: 'old', item: { id: 'e1' } },
    ];
    const stores = new Map<string, string | null>([['eu-1', 'store-a'], ['eu-2', 'store-a'], ['us-1', 'store-b'], ['old', null]]);
    assert.deepEqual(onePerStore(rows, stores, (i) => i.id).map((r) => `${r.host} ${r.item.id}`),
      ['eu-1+eu-2 e1', 'eu-1+eu-2 e2', 'us-1 e1', 'old e1', 'old e1']);
  });
});
