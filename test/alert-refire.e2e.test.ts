/**
 * Nothing suppressed (contract §12.2), against the built daemon: an Alertmanager group that fires,
 * resolves and fires again within the idempotency window pages three times, the last one not
 * `[RESOLVED]`; alerts without a `fingerprint` that differ in their labels are two notifications; and a
 * replayed signed request whose (unsigned) fingerprint header was chosen to equal
 * a real notification's derived key cannot make that notification a duplicate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { postWebhook, sign } from './support/http.js';
import { auditRows, readJsonLines } from './support/store.js';
import { waitFor } from './support/wait.js';

const GROUP = '{}:{alertname="DiskFull"}';
const LABELS = { alertname: 'DiskFull', severity: 'critical', instance: 'db-1' };

/** An Alertmanager (payload version 4) notification of one alert, as the stock receiver posts it. */
function notification(status: 'firing' | 'resolved', startsAt: string, endsAt: string, instance = 'db-1'): string {
  const labels = { ...LABELS, instance };
  return JSON.stringify({
    version: '4', groupKey: GROUP, status, receiver: 'svc', truncatedAlerts: 0,
    groupLabels: { alertname: 'DiskFull' }, commonLabels: labels, commonAnnotations: { summary: `disk 97% full on ${instance}` },
    externalURL: 'http://alertmanager:9093',
    alerts: [{ status, labels, annotations: { summary: `disk 97% full on ${instance}` }, startsAt, endsAt,
      generatorURL: 'http://prometheus:9090/graph', fingerprint: `fp-${instance}` }],
  });
}

describe('Alertmanager notifications without a fingerprint header', () => {
  let d: Daemon;
  const out = (): Array<Record<string, unknown>> => readJsonLines(join(d.dir, 'out', 'oncall-dm.jsonl'));
  const post = (body: string, headers: Record<string, string> = {}) =>
    postWebhook(d.url, body, { 'content-type': 'application/json', 'x-signature': sign(d.secret, body), ...headers });

  before(async () => { d = await startDaemon(); });
  after(async () => { await d.stop(); });

  it('fire → resolve → re-fire (new startsAt): three 202, three messages, the last one firing', async () => {
    const t0 = new Date(Date.now() - 120_000).toISOString();
    const t1 = new Date(Date.now() - 60_000).toISOString();
    const t2 = new Date(Date.now() - 1_000).toISOString();
    const fire = await post(notification('firing', t0, '0001-01-01T00:00:00Z'));
    const resolve = await post(notification('resolved', t0, t1));
    const refire = await post(notification('firing', t2, '0001-01-01T00:00:00Z'));
    assert.deepEqual([fire.status, resolve.status, refire.status], [202, 202, 202]);
    assert.equal(new Set([fire.json?.eventId, resolve.json?.eventId, refire.json?.eventId]).size, 3);

    // Alertmanager's retry of the re-fire is still a duplicate of it.
    const retry = await post(notification('firing', t2, '0001-01-01T00:00:00Z'));
    assert.equal(retry.status, 200);
    assert.equal(retry.json?.eventId, refire.json?.eventId);

    const lines = await waitFor('three messages', () => (out().length >= 3 ? out() : undefined), 60_000);
    const byEvent = (id: unknown) => lines.find((l) => l.eventId === id);
    assert.match(String(byEvent(fire.json?.eventId)?.text), /^\[P1\] FIRING: DiskFull on db-1/);
    assert.match(String(byEvent(resolve.json?.eventId)?.text), /^\[RESOLVED\] /);
    const last = byEvent(refire.json?.eventId);
    assert.ok(last, 'the re-fire was delivered');
    assert.match(String(last.text), /^\[P1\] FIRING: DiskFull on db-1/);
    assert.doesNotMatch(String(last.text), /RESOLVED/);
    await waitFor('the retry audited as a duplicate', () => auditRows(d.home).some((r) => r.kind === 'event.duplicate'
      && r.data.eventId === refire.json?.eventId), 30_000);
    assert.equal(out().length, 3, 'the retry sent nothing');
  });

  it('alerts without a fingerprint are told apart by their labels: two hosts, two 202, two pages', async () => {
    const startsAt = new Date(Date.now() - 5_000).toISOString();
    // A sender speaking Alertmanager's format without its per-alert `fingerprint` (an older or a
    // hand-written relay); one group, the same times, only the labels differ.
    const bare = (instance: string): string => {
      const body = JSON.parse(notification('firing', startsAt, '0001-01-01T00:00:00Z', instance)) as { alerts: Array<Record<string, unknown>> };
      for (const a of body.alerts) delete a.fingerprint;
      return JSON.stringify(body);
    };
    const first = await post(bare('web-1'));
    const second = await post(bare('web-2'));
    assert.deepEqual([first.status, second.status], [202, 202], 'the second host is not a duplicate of the first');
    assert.notEqual(first.json?.eventId, second.json?.eventId);
    const again = await post(bare('web-2'));
    assert.equal(again.status, 200, 'a retry of one of them still is');
    assert.equal(again.json?.eventId, second.json?.eventId);
    for (const id of [first.json?.eventId, second.json?.eventId]) {
      await waitFor(`the page of ${String(id)}`, () => out().find((l) => l.eventId === id), 60_000);
    }
  });

  it('a replayed signed request with a chosen fingerprint header cannot suppress the real notification', async () => {
    const startsAt = new Date(Date.now() - 5_000).toISOString();
    const real = notification('firing', startsAt, '0001-01-01T00:00:00Z', 'db-2');
    // The attacker computes the key svc will derive for `real` and replays an old signed body with it.
    const { alertmanagerFingerprint } = await import('../src/ingest/fingerprint.js');
    const derived = alertmanagerFingerprint(JSON.parse(real)) as string;
    const captured = notification('firing', startsAt, '0001-01-01T00:00:00Z', 'db-9');
    const inSpace = await post(captured, { 'x-alert-fingerprint': derived });
    assert.equal(inSpace.status, 400, 'a header in the derived key space is refused');
    assert.match(String(inSpace.json?.message), /must not start with "derived:"/);
    const bareHex = await post(captured, { 'x-alert-fingerprint': derived.replace(/^derived:/, '') });
    assert.equal(bareHex.status, 202, 'any other header is the sender\'s own key');

    const answer = await post(real);
    assert.equal(answer.status, 202, 'the real notification is new');
    await waitFor('the real page', () => out().find((l) => l.eventId === answer.json?.eventId), 60_000);
  });
});
