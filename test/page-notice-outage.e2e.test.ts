/**
 * A page notice outlives a short outage of its channel, against the built daemon (contract §17.4: page
 * notifications go through the dispatcher like every message, at least once). alice's contact is a
 * webhook whose receiver answers 503 for longer than the quick tries (`dispatch.maxAttempts: 2`); the
 * notice waits for later rounds within `store.deliveryWindow` and is delivered once the receiver is
 * back — once, with no `message.failed` given up on the way.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { postAlert } from './support/http.js';
import { aliceOnlyYaml } from './support/oncall-yaml.js';
import { auditRows } from './support/store.js';
import { waitFor } from './support/wait.js';

describe('a page notice through a channel outage', () => {
  let daemon: Daemon | null = null;
  let down = true;
  /** Every request the receiver saw, by Idempotency-Key (the notice's deliveryId), with its answer. */
  const seen: Array<{ deliveryId: string; status: number }> = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = down ? 503 : 204;
      seen.push({ deliveryId: String(req.headers['idempotency-key']), status });
      res.writeHead(status).end();
    });
  });
  after(async () => {
    await daemon?.stop();
    receiver.closeAllConnections();
    receiver.close();
  });

  it('503 for longer than the quick tries, then 204: the notice is delivered once, nothing given up', async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    daemon = await startDaemon({
      // Two quick tries 100 ms apart, then rounds 0.5 s, 1 s, 2 s… apart, within a 10-minute window.
      agentYaml: 'dispatch: { maxAttempts: 2, initialBackoffMs: 100, maxBackoffMs: 500 }\nstore: { deliveryWindow: 10m }',
      channelsYaml: ['channels:', '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl }',
        `  - { id: hook, type: webhook, direction: outbound, url: "${hook}" }`].join('\n'),
      files: { 'oncall.yaml': aliceOnlyYaml('hook: alice') },
    });
    const { home } = daemon;
    assert.equal((await postAlert(daemon.url, daemon.secret, daemon.fixture, 'outage-1')).status, 202);
    // Four tries refused: two more than the quick ones (the old notifier gave up after the second).
    await waitFor('four refused tries', () => seen.length >= 4, 60_000);
    const deliveryId = seen[0]?.deliveryId ?? '';
    assert.match(deliveryId, /^p[a-z0-9]{12}\.1\.alice\.hook$/);
    const pageId = deliveryId.split('.')[0] ?? '';
    assert.deepEqual(auditRows(home).filter((r) => r.kind === 'message.failed' && r.data.deliveryId === deliveryId), [],
      'still trying: not given up after the quick tries');

    down = false;
    const delivered = await waitFor('message.delivered', () => auditRows(home).find((r) => r.kind === 'message.delivered' && r.data.deliveryId === deliveryId),
      60_000);
    const tries = seen.filter((s) => s.deliveryId === deliveryId);
    assert.deepEqual(tries.filter((s) => s.status === 204).length, 1, 'delivered once');
    assert.deepEqual(tries.at(-1)?.status, 204, 'and not sent again after');
    assert.equal(delivered.data.attempt, tries.length, 'the delivery is the last of its tries');
    assert.equal(delivered.data.pageId, pageId);
    assert.deepEqual(auditRows(home).filter((r) => r.kind === 'message.failed'), [], 'nothing given up');
    assert.deepEqual(seen.map((s) => s.deliveryId), tries.map((s) => s.deliveryId), 'the receiver saw that notice only');
  });
});
