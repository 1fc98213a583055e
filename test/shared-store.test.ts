import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sharedSqliteStore } from './support/shared-store.js';
import { accept, ev, q } from './support/store-contract.js';

const T0 = Date.UTC(2026, 0, 1);
const shared = sharedSqliteStore('svc-shared-store-');
after(() => shared.close());

test('a shared store handed out again is as empty as a new one: no events, no chain, no silences; its chain starts at seq 1', async () => {
  const first = await shared.fresh();
  await accept(first, ev({ fingerprint: 'fp-1' }));
  await first.oncall.addSilence({ id: 'si-1', agentId: null, matchers: [{ label: 'alertname', op: '=', value: 'X' }], startsAtMs: T0,
    endsAtMs: T0 + 60_000, reason: 'test', createdBy: 'admin:a' }, T0);
  assert.equal((await first.auditHead())?.seq, 2);

  const second = await shared.fresh();
  assert.deepEqual((await second.listEvents(q(), {})).items, []);
  assert.equal(await second.auditHead(), null);
  assert.deepEqual(await second.oncall.listSilences(0), []);
  // The fingerprint went too: the same delivery is a new event, whose row is the chain's first.
  await accept(second, ev({ fingerprint: 'fp-1' }));
  assert.equal((await second.auditHead())?.seq, 1);
  assert.equal((await second.verifyAudit()).ok, true);
});
