import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startWorkerClient } from './worker-client.js';

const root = mkdtempSync(join(tmpdir(), 'svc-worker-client-'));
after(() => rmSync(root, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 0, 1);

test('a worker call is typed by the thread\'s handler table: a wrong name or wrong arguments do not compile', async () => {
  const writer = await startWorkerClient({ role: 'writer', path: join(root, 'svc.db'), windowMs: 60_000 });
  try {
    const event = { agentId: 'a', sourceId: 's', kind: 'webhook', fingerprint: null, payloadText: '{}' };
    // The result type comes from the handler: `outcome` is known without a type argument.
    const ok = await writer.call('ingestEvent', event, T0);
    assert.equal(ok.outcome, 'accepted');

    // `npm run lint` type-checks this file: if any line below compiled, its @ts-expect-error would fail.
    // @ts-expect-error 'ingestEvnt' is not an operation of the writer
    const misspelt = writer.call('ingestEvnt', event, T0);
    // @ts-expect-error the time and the event are swapped
    const swapped = writer.call('ingestEvent', T0, event);
    // @ts-expect-error 'listEvents' is the reader's, not the writer's
    const wrongThread = writer.call('listEvents', { limit: 1, order: 'asc', cursor: null }, {});

    // At run time the thread refuses what the types would have caught.
    await assert.rejects(misspelt, /unknown store operation ingestEvnt/);
    await assert.rejects(wrongThread, /unknown store operation listEvents/);
    await assert.rejects(swapped);
  } finally {
    await writer.close();
  }
});

test('a turn of many calls reaches the writer in several messages, in the order they were made', async () => {
  const writer = await startWorkerClient({ role: 'writer', path: join(root, 'order.db'), windowMs: 60_000 });
  try {
    // 100 calls in one turn: past the first messages' worth, they are posted as they come (worker-client.ts, POST_EVERY).
    // Call i says it is T0 + i ms: an event's time never goes back (stampMs), so a call stored before an
    // earlier one would push that one's time forward.
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => writer.call('ingestEvent',
      { agentId: 'a', sourceId: 's', kind: 'webhook', fingerprint: `fp-${i}`, payloadText: `{"i":${i}}` }, T0 + i)));
    const ids = results.map((r) => (r.outcome === 'accepted' ? r.event.id : ''));
    assert.equal(new Set(ids).size, 100, 'each call answered with its own event');
    assert.deepEqual(results.map((r) => (r.outcome === 'accepted' ? r.event.ts : '')), Array.from({ length: 100 }, (_, i) => new Date(T0 + i).toISOString()),
      'stored in the order the calls were made');
    // A repeat of the first fingerprint in a later turn is a duplicate of the first call's event.
    const again = await writer.call('ingestEvent', { agentId: 'a', sourceId: 's', kind: 'webhook', fingerprint: 'fp-0', payloadText: '{}' }, T0 + 100);
    assert.deepEqual(again.outcome === 'duplicate' && again.eventId, ids[0]);
  } finally {
    await writer.close();
  }
});
