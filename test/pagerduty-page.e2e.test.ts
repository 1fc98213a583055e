/**
 * PagerDuty kept in step with a page, against the built daemon and a local Events API v2 (contract
 * §18.4): the page opening triggers, `svc ack` acknowledges, Alertmanager's resolved notification
 * resolves — one dedup_key, the page id. PagerDuty's first answer is a 500 that quotes the routing key:
 * the retry goes through, and the key (a canary) is nowhere in the agent's log, the audit rows or any
 * other file svc wrote.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { postAlert } from './support/http.js';
import { aliceOnlyYaml, resolvedBody } from './support/oncall-yaml.js';
import { auditRows } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const ROUTING_KEY = 'CanaryR0utingKey0000000000000e2e';

const ONCALL = aliceOnlyYaml('oncall-dm: alice', ['channel:pd']);

/** Every file under a directory, as text. */
function allText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out += allText(path);
    else out += readFileSync(path, 'latin1');
  }
  return out;
}

describe('pagerduty e2e', () => {
  const t = tempEnv();
  const events: Array<Record<string, unknown>> = [];
  let failFirst = true;
  const pd = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      if (failFirst) {
        failFirst = false;
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: 'error', message: `internal error for ${String(event.routing_key)}` }));
        return;
      }
      events.push(event);
      res.writeHead(202, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: event.dedup_key }));
    });
  });
  let dir = '';
  after(async () => {
    if (dir) await runSvc(['down'], { env: t.env, cwd: dir });
    pd.closeAllConnections();
    pd.close();
    t.cleanup();
  });

  it('trigger on opening, acknowledge on svc ack, resolve on the resolved alert: one dedup_key; the key never leaks', async () => {
    await new Promise<void>((resolve) => pd.listen(0, '127.0.0.1', () => resolve()));
    const pdUrl = `http://127.0.0.1:${(pd.address() as AddressInfo).port}/v2/enqueue`;
    const a = await scaffoldAgent(t, 'pd');
    dir = a.dir;
    t.env.PD_ROUTING_KEY = ROUTING_KEY;
    writeFileSync(join(a.dir, 'channels.yaml'), [
      'channels:',
      '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl }',
      `  - { id: pd, type: pagerduty, direction: outbound, routingKey: "\${env:PD_ROUTING_KEY}", url: "${pdUrl}" }`,
      '',
    ].join('\n'));
    writeFileSync(join(a.dir, 'oncall.yaml'), ONCALL);
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);

    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'pd-1')).status, 202);
    const trigger = await waitFor('PagerDuty triggered (after one retry)', () => events.find((e) => e.event_action === 'trigger'));
    const pageId = String(trigger.dedup_key);
    assert.match(pageId, /^p[a-z0-9]{12}$/);
    assert.equal(trigger.routing_key, ROUTING_KEY);
    const payload = trigger.payload as Record<string, unknown>;
    assert.equal(payload.source, 'oncall-escalator');
    assert.equal(payload.severity, 'critical');

    const ack = await runSvc(['ack', pageId, '--as', 'alice'], { env: t.env, cwd: a.dir });
    assert.equal(ack.code, 0, ack.stderr);
    await waitFor('PagerDuty acknowledged', () => events.some((e) => e.event_action === 'acknowledge'));
    assert.equal((await postAlert(a.url, a.secret, resolvedBody(a.fixture), 'pd-resolved')).status, 202);
    await waitFor('PagerDuty resolved', () => events.some((e) => e.event_action === 'resolve'));

    assert.deepEqual(events.map((e) => [e.event_action, e.dedup_key]), [['trigger', pageId], ['acknowledge', pageId], ['resolve', pageId]]);
    assert.deepEqual(events[1], { routing_key: ROUTING_KEY, event_action: 'acknowledge', dedup_key: pageId });
    const down = await runSvc(['down'], { env: t.env, cwd: a.dir });
    assert.equal(down.code, 0, down.stderr);
    dir = '';

    const rows = auditRows(t.home);
    const delivered = rows.filter((r) => r.kind === 'message.delivered' && r.data.channelId === 'pd');
    assert.equal(delivered.length, 3, 'trigger, acknowledge and resolve each delivered once');
    const written = allText(t.home) + allText(a.dir);
    assert.ok(written.includes('internal error for [redacted]'), 'the 500 was logged, redacted');
    assert.ok(!written.includes(ROUTING_KEY), 'the routing key is in no file svc wrote');
  });
});
