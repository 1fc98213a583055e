import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRecordId } from './record-id.js';

/** A lowercase UUID, as the control plane's event routes accept it (control-plane/event-story.ts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('a record id is a version 7 UUID whose first 48 bits are the creation time', () => {
  const id = newRecordId(Date.UTC(2026, 10, 25, 21, 30));
  assert.match(id, UUID);
  assert.equal(id[14], '7', 'version nibble');
  assert.ok('89ab'.includes(id[19] as string), `variant nibble of ${id}`);
  assert.equal(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16), Date.UTC(2026, 10, 25, 21, 30));
});

test('ids made later sort after ids made earlier, so inserts append to the id index', () => {
  const ids = [0, 1, 2, 1000, 86_400_000].map((dt) => newRecordId(1_780_000_000_000 + dt));
  assert.deepEqual([...ids].sort(), ids);
});

test('two ids made in the same millisecond differ (74 random bits)', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newRecordId(1_780_000_000_000)));
  assert.equal(ids.size, 1000);
});

test('ids drawn across refills of the random pool stay version 7 and distinct', () => {
  // The pool holds 128 ids' worth of bytes: 1,000 ids refill it several times.
  const ids = Array.from({ length: 1000 }, () => newRecordId(1_780_000_000_000));
  for (const id of ids) {
    assert.match(id, UUID);
    assert.equal(id[14], '7', `version nibble of ${id}`);
    assert.ok('89ab'.includes(id[19] as string), `variant nibble of ${id}`);
  }
  assert.equal(new Set(ids.map((id) => id.slice(14))).size, 1000, 'the random parts differ');
});

test('a time before 1970 or past 48 bits is clamped, never a longer or shorter id', () => {
  assert.match(newRecordId(-5), UUID);
  assert.ok(newRecordId(-5).startsWith('00000000-0000-7'));
  assert.match(newRecordId(2 ** 50), UUID);
  assert.ok(newRecordId(2 ** 50).startsWith('ffffffff-ffff-7'));
});
