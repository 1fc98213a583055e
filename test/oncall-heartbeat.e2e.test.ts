/**
 * Heartbeats against the built daemon (contract §17.7): when no delivery matching the heartbeat
 * arrives for `every + grace`, a page opens with incident key `heartbeat:<id>` and pages its policy;
 * the next matching delivery resolves it and tells everyone who was paged.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { postAlert } from './support/http.js';
import { oncallYaml } from './support/oncall-yaml.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { auditRows, readJsonLines } from './support/store.js';
import { waitFor } from './support/wait.js';

/** Alertmanager's always-firing Watchdog, as the mock alert with its labels. */
function watchdog(fixture: string): string {
  const body = JSON.parse(fixture) as { groupKey: string; commonLabels: Record<string, string>; alerts: Array<{ labels: Record<string, string> }> };
  body.groupKey = '{}:{alertname="Watchdog"}';
  body.commonLabels = { alertname: 'Watchdog', severity: 'none' };
  for (const a of body.alerts) a.labels = { alertname: 'Watchdog', severity: 'none' };
  return JSON.stringify(body);
}

describe('heartbeats e2e', () => {
  let d: Daemon | null = null;
  after(async () => { await d?.stop(); });

  it('a delivery that is only a heartbeat opens no page, even one whose labels would page; one beside a real alert does', async () => {
    d = await startDaemon({ files: { 'oncall.yaml': oncallYaml('1h', '1h',
      'heartbeats:\n  - { id: watchdog, source: alertmanager, match: { alertname: Watchdog }, every: 1h, grace: 0s, policy: default }\n') } });
    const a = d;
    // A Watchdog labelled critical: triaged P1, which the route would page, were it not the heartbeat's proof of life.
    const critical = JSON.parse(watchdog(a.fixture)) as { commonLabels: Record<string, string>; alerts: Array<{ labels: Record<string, string> }> };
    critical.commonLabels.severity = 'critical';
    for (const alert of critical.alerts) alert.labels.severity = 'critical';
    assert.equal((await postAlert(a.url, a.secret, JSON.stringify(critical), 'wd-only')).status, 202);
    const skipped = await waitFor('the engine said the delivery is a heartbeat only', () => readJsonLines(a.logFile)
      .find((l) => l.event === 'page.heartbeat-only'));
    // The decision's audit row commits with the event's completion, which may land after the engine's log line.
    const triaged = await waitFor('the triage decision is in the chain', () => auditRows(a.home)
      .find((r) => r.kind === 'triage.decision' && r.data.eventId === skipped.eventId));
    assert.deepEqual([triaged?.data.severity, triaged?.data.notify], ['P1', true]);
    assert.equal(auditRows(a.home).filter((r) => r.kind === 'page.opened').length, 0);

    // The same group with a real alert in it is an incident: it pages.
    const mixed = JSON.parse(JSON.stringify(critical)) as typeof critical;
    mixed.commonLabels = { severity: 'critical' };
    mixed.alerts.push({ ...mixed.alerts[0]!, labels: { alertname: 'HighErrorRate', severity: 'critical' } });
    assert.equal((await postAlert(a.url, a.secret, JSON.stringify(mixed), 'wd-mixed')).status, 202);
    await waitFor('the group with a real alert opened a page', () => auditRows(a.home).find((r) => r.kind === 'page.opened'));
    assert.equal(readJsonLines(a.logFile).filter((l) => l.event === 'page.heartbeat-only').length, 1);
    await a.stop();
    d = null;
  });

  it('a missed heartbeat pages its policy; the next matching delivery resolves the page', async () => {
    d = await startDaemon({ files: { 'oncall.yaml': oncallYaml('1h', '1h',
      'heartbeats:\n  - { id: watchdog, source: alertmanager, match: { alertname: Watchdog }, every: 10s, grace: 0s, policy: default }\n') } });
    const a = d;
    const out = join(a.dir, 'out', 'oncall-dm.jsonl');
    assert.equal((await postAlert(a.url, a.secret, watchdog(a.fixture), 'wd-1')).status, 202);
    const paged = await waitFor('the missed heartbeat paged alice', () => readJsonLines(out).find((l) => l.to === 'alice'), 60_000);
    assert.match(String(paged.title), /^Heartbeat watchdog missing: nothing from alertmanager since \d{4}-\d\d-\d\d \d\d:\d\dZ \(every 10s, grace 0s\)$/);
    const missed = auditRows(a.home).filter((r) => r.kind === 'heartbeat.missed');
    assert.equal(missed.length, 1);
    const opened = auditRows(a.home).find((r) => r.kind === 'page.opened');
    assert.equal(opened?.data.incidentKey, 'heartbeat:watchdog');
    assert.equal(opened.data.alertname, 'heartbeat:watchdog', 'svc report --by alert names it');

    assert.equal((await postAlert(a.url, a.secret, watchdog(a.fixture), 'wd-2')).status, 202);
    const resolved = await waitFor('the heartbeat is back: the page is resolved', () => readJsonLines(out).find((l) => l.status === 'resolved'), 30_000);
    assert.equal(resolved.deliveryId, `${String(paged.pageId)}.2.alice.oncall-dm`);
    const row = auditRows(a.home).find((r) => r.kind === 'page.resolved');
    assert.deepEqual([row?.data.by, row?.data.via], ['source', 'source']);
  });
});
