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
