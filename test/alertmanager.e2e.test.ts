/**
 * Stock Alertmanager delivers to svc with the file `svc init` wrote (contract §12): a real
 * `prometheus-alertmanager` posts with its bearer token and no fingerprint header; the alert reaches
 * the on-call file channel, its resolution sends `[RESOLVED]`, its retries of one notification are
 * duplicates, not second pages, and its firing again after the resolve is a new page. Between the two sits a proxy that loses svc's first answer, so
 * Alertmanager really retries.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningAlertmanager } from './support/alertmanager.js';
import { alertmanagerInstalled, amtoolCheckConfig, readConfig, startAlertmanager } from './support/alertmanager.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { readSecretFile, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

/** Forwards POSTs to `target`; the first `drop` answers are lost (the socket is cut after svc answered). */
function lossyProxy(target: string, drop: number):
  Promise<{ url: string; seen: Array<{ authorization: string | undefined; status: number }>; close(): Promise<void> }> {
  const seen: Array<{ authorization: string | undefined; status: number }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (req.headers.authorization !== undefined) headers.authorization = req.headers.authorization;
      void fetch(target, { method: 'POST', headers, body: Buffer.concat(chunks) }).then(async (answer) => {
        const text = await answer.text();
        seen.push({ authorization: req.headers.authorization, status: answer.status });
        if (seen.length <= drop) {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      }, () => req.socket.destroy());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/alertmanager`,
    seen,
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }),
  })));
}

describe('a real Alertmanager, configured by svc init', { skip: alertmanagerInstalled() ? false : 'prometheus-alertmanager is not installed (.ci/run installs it)' }, () => {
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let am: RunningAlertmanager | null = null;
  let proxy: Awaited<ReturnType<typeof lossyProxy>> | null = null;
  const out = (): Array<Record<string, unknown>> => readJsonLines(join(agent.dir, 'out', 'oncall-dm.jsonl'));

  before(async () => {
    agent = await scaffoldAgent(t);
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: agent.dir });
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await am?.stop();
    await proxy?.close();
    await runSvc(['down'], { env: t.env, cwd: agent.dir });
    t.cleanup();
  });

  it('amtool check-config accepts the generated alertmanager.yml', async () => {
    const config = readConfig(agent.dir);
    assert.match(config, /type: Bearer/);
    assert.ok(config.includes(`credentials_file: ${join(t.home, 'secrets', 'alert-escalation', 'webhook-token')}`), config);
    const check = await amtoolCheckConfig(join(agent.dir, 'alertmanager.yml'));
    assert.equal(check.code, 0, check.output);
    assert.match(check.output, /SUCCESS/);
  });

  it('an alert posted to Alertmanager pages once, though Alertmanager retried; resolving it sends [RESOLVED]', async () => {
    proxy = await lossyProxy(agent.url, 1);
    am = await startAlertmanager(readConfig(agent.dir), { url: proxy.url,
      timings: { groupWait: '200ms', groupInterval: '1s', repeatInterval: '1h' } });
    const labels = { alertname: 'DiskFull', severity: 'critical', instance: 'db-1' };
    await am.postAlerts([{ labels, annotations: { summary: 'disk 97% full on db-1' } }]);

    const firing = await waitFor('the page', () => out().at(0), 30_000);
    assert.match(String(firing.text), /^\[P1\] FIRING: DiskFull on db-1/);
    assert.match(String(firing.text), /disk 97% full on db-1/);
    // Alertmanager's retry of the notification whose answer was lost: svc recorded it as a duplicate.
    const duplicate = await waitFor('the retry recorded as a duplicate', () =>
      auditRows(t.home).find((r) => r.kind === 'event.duplicate'), 30_000);
    assert.equal(duplicate.data.eventId, firing.eventId);
    const token = readSecretFile(t.home, 'alert-escalation/webhook-token');
    // The proxy records an answer once svc has sent it; the duplicate's audit row is written before.
    await waitFor('the retry\'s answer seen by the proxy', () => (proxy?.seen.length ?? 0) >= 2, 30_000);
    assert.deepEqual(proxy.seen.slice(0, 2).map((s) => s.status), [202, 200]);
    for (const s of proxy.seen) assert.equal(s.authorization, `Bearer ${token}`);

    await am.postAlerts([{ labels, annotations: { summary: 'disk 97% full on db-1' }, endsAt: new Date(Date.now() - 1000).toISOString() }]);
    const resolved = await waitFor('the resolved message', () => out().at(1), 30_000);
    assert.match(String(resolved.text), /^\[RESOLVED\] \[P1\] DiskFull on db-1/);
    assert.equal(resolved.status, 'resolved');

    // One page for the firing notification (its retry was a duplicate), one for the resolution.
    assert.equal(out().length, 2, JSON.stringify(out()));
    const events = queryStore<{ fingerprint: string }>(t.home, 'SELECT fingerprint FROM events ORDER BY seq');
    assert.equal(events.length, 2);
    for (const e of events) assert.match(e.fingerprint, /^derived:[0-9a-f]{64}$/);
    assert.notEqual(events[0]?.fingerprint, events[1]?.fingerprint);

    // It fires again within the 15-minute window: a new startsAt, so a new page — the last message the
    // on-call person sees is the firing one, not [RESOLVED] (contract §12.2).
    await am.postAlerts([{ labels, annotations: { summary: 'disk 97% full on db-1' }, startsAt: new Date().toISOString() }]);
    const refired = await waitFor('the re-fire', () => out().at(2), 60_000);
    assert.match(String(refired.text), /^\[P1\] FIRING: DiskFull on db-1/);
    assert.equal(refired.status, 'firing');
    assert.equal(queryStore<{ fingerprint: string }>(t.home, 'SELECT fingerprint FROM events ORDER BY seq').length, 3);
  });
});
