import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeRows } from './merge.js';

type Row = { ts: string; id: string };
const ts = (r: Row): string => r.ts;
const id = (r: Row): string => r.id;

describe('mergeRows', () => {
  const perHost = [
    { host: 'eu-2', items: [{ ts: '2030-01-01T00:00:03.000Z', id: 'b' }, { ts: '2030-01-01T00:00:01.000Z', id: 'c' }] },
    { host: 'eu-1', items: [{ ts: '2030-01-01T00:00:03.000Z', id: 'z' }, { ts: '2030-01-01T00:00:03.000Z', id: 'a' }, { ts: '2030-01-01T00:00:02.000Z', id: 'y' }] },
  ];

  it('desc: newest first, then host name, then id (in the view order)', () => {
    assert.deepEqual(mergeRows(perHost, 'desc', ts, id).map((r) => `${r.host}/${r.item.id}`),
      ['eu-1/z', 'eu-1/a', 'eu-2/b', 'eu-1/y', 'eu-2/c']);
  });

  it('asc: oldest first, then host name, then id', () => {
    assert.deepEqual(mergeRows(perHost, 'asc', ts, id).map((r) => `${r.host}/${r.item.id}`),
      ['eu-2/c', 'eu-1/y', 'eu-1/a', 'eu-1/z', 'eu-2/b']);
  });

  it('numeric keys (audit seq) compare as numbers', () => {
    const rows = mergeRows([{ host: 'h', items: [{ ts: 't', seq: 10 }, { ts: 't', seq: 9 }] }], 'asc', (r) => r.ts, (r) => r.seq);
    assert.deepEqual(rows.map((r) => r.item.seq), [9, 10]);
  });
});
