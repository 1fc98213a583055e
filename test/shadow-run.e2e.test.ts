/**
 * A shadow run end to end (contract §22.3), on the built CLI: `svc up -d --shadow` with an oncall.yaml
 * and the template's file channel. Three alerts open three pages; every round is recorded
 * (`page.notified` with `shadow: true`, `message.shadowed`, `outcome="shadow"`) while the file channel
 * is never written. The daemon says it is a shadow run (`svc ps`, /status, the console, its output).
 * `svc shadow report` lists who would have been woken; `--compare` holds it against an Opsgenie and a
 * PagerDuty export (test/fixtures/shadow/, their times moved to this run's): one alert both paged alike,
 * one where they told different people, one only the old pager paged, one only svc; an export it cannot
 * read exits 2 naming the file and the JSON path.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { metricValue, postAlert } from './support/http.js';
import { auditRows } from './support/store.js';
import { oncallSkeleton } from './support/oncall-yaml.js';
import { runSvc } from './support/svc.js';
import { waitFor } from './support/wait.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/shadow/', import.meta.url));
/** The fixtures' DiskFull: Opsgenie told alice at 10:00:10, PagerDuty at 10:00:12. */
const OPSGENIE_DISK_NOTICE = Date.parse('2026-11-23T10:00:10Z');
const PAGERDUTY_DISK_NOTICE = Date.parse('2026-11-23T10:00:12Z');

const ONCALL = oncallSkeleton({
  people: ['{ id: alice, name: Alice Example, login: alice@example.com, contacts: { oncall-dm: alice } }',
    '{ id: bob, name: Bob Builder, contacts: { oncall-dm: bob } }'],
  policies: {
    default: ['{ notify: [schedule:primary], after: 1h }', '{ notify: [person:bob], after: 1h }'],
    fast: ['{ notify: [schedule:primary], after: 2s }', '{ notify: [person:bob], after: 1h }'],
  },
  routes: ['{ match: { severity: [P1, P2], labels: { alertname: QueueBacklog } }, policy: fast }', '{ match: { severity: [P1, P2] }, policy: default }'],
  incidents: '{ key: groupKey }',
});

/** The template's mock alert as an Alertmanager group of its own alert name. */
function alertNamed(fixture: string, name: string): string {
  const body = JSON.parse(fixture) as { groupKey: string; groupLabels: Record<string, string>; commonLabels: Record<string, string>;
    alerts: Array<{ labels: Record<string, string> }> };
  body.groupKey = `{}:{alertname="${name}"}`;
  body.groupLabels.alertname = name;
  body.commonLabels.alertname = name;
  for (const a of body.alerts) a.labels.alertname = name;
  return JSON.stringify(body);
}

/** A copy of a vendor fixture with every time moved by `shiftMs`: the vendor's own shape, this run's clock. */
function shifted(from: string, to: string, shiftMs: number): string {
  cpSync(from, to, { recursive: true });
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else writeFileSync(path, readFileSync(path, 'utf8').replace(/"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)"/g,
        (_, iso: string) => JSON.stringify(new Date(Date.parse(iso) + shiftMs).toISOString())));
    }
  };
  walk(to);
  return to;
}

interface Compared { key: string; title: string; paged: string; samePeople: boolean | null; svc: { people: string[] } | null;
  old: { people: string[] } | null; delaySeconds: number | null }

describe('shadow run e2e (§22.3)', () => {
  let d: Daemon;
  let diskFirstNoticeMs = 0;
  const svc = (args: string[]) => runSvc(args, { env: d.env, cwd: d.dir });
  before(async () => {
    d = await startDaemon({ files: { 'oncall.yaml': ONCALL }, upArgs: ['--shadow'] });
  });
  after(async () => { await d.stop(); });

  it('pages and escalates as it would and records every round, and the file channel stays empty', async () => {
    for (const name of ['DiskFull', 'HighLatency', 'QueueBacklog']) {
      assert.equal((await postAlert(d.url, d.secret, alertNamed(d.fixture, name), `shadow-${name}`)).status, 202);
    }
    // QueueBacklog's policy escalates after 2 s: its timer fires in the shadow run as it would live.
    const shadowed = await waitFor('three shadowed openings, one escalation and alice told of it', () => {
      const rows = auditRows(d.home).filter((r) => r.kind === 'message.shadowed');
      return rows.length === 5 ? rows : false;
    });
    const queue = (await import('./support/store.js')).queryStore<{ id: string }>(d.home,
      'SELECT id FROM pages WHERE incident_key = ?', '{}:{alertname="QueueBacklog"}')[0]?.id;
    // The evidence of what would have been sent...
    assert.deepEqual(shadowed.map((r) => [r.data.person, r.data.channelId, r.data.pageKind]), [['alice', 'oncall-dm', 'escalation'],
      ['alice', 'oncall-dm', 'escalation'], ['alice', 'oncall-dm', 'escalation'], ['bob', 'oncall-dm', 'escalation'], ['alice', 'oncall-dm', 'escalated-past']]);
    assert.equal(shadowed[3]?.data.pageId, queue);
    const escalated = auditRows(d.home).filter((r) => r.kind === 'page.escalated');
    assert.deepEqual(escalated.map((r) => [r.data.pageId, r.data.reason]), [[queue, 'timeout']]);
    const rounds = auditRows(d.home).filter((r) => r.kind === 'page.notified');
    assert.deepEqual(rounds.map((r) => [r.data.person, r.data.shadow]), [['alice', true], ['alice', true], ['alice', true], ['bob', true], ['alice', true]]);
    const exposition = await (await fetch(`${d.cp}/metrics`)).text();
    const count = (outcome: string): number | undefined => metricValue(exposition, 'svc_channel_messages_total',
      { agent: 'oncall-escalator', channel: 'oncall-dm', outcome });
    assert.deepEqual([count('shadow'), count('delivered'), count('failed')], [5, 0, 0]);
    assert.equal(auditRows(d.home).filter((r) => r.kind === 'message.delivered').length, 0);
    // ...and of what was: nothing reached the channel.
    const out = join(d.dir, 'out', 'oncall-dm.jsonl');
    assert.ok(!existsSync(out) || readFileSync(out, 'utf8') === '', 'the file channel was never written');
    const disk = (await import('./support/store.js')).queryStore<{ id: string }>(d.home,
      'SELECT id FROM pages WHERE incident_key = ?', '{}:{alertname="DiskFull"}')[0]?.id;
    diskFirstNoticeMs = Date.parse(shadowed.find((r) => r.data.pageId === disk)?.ts ?? '');
    assert.ok(Number.isFinite(diskFirstNoticeMs));
  });

  it('says it is a shadow run wherever an operator looks', async () => {
    const ps = await svc(['ps']);
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, /\nSHADOW RUN: oncall-escalator pages nobody: every round is recorded, nothing is sent \(svc shadow report\)\n/);
    assert.match(ps.stdout, /\nagent oncall-escalator {2}running {2}provider rules {2}SHADOW: sends nothing\n/);
    const status = await (await fetch(`${d.cp}/status`)).json() as { agents: Array<{ shadow: boolean }> };
    assert.equal(status.agents[0]?.shadow, true);
    const ui = await (await fetch(`${d.cp}/ui/`)).text();
    assert.match(ui, /<p class="shadow-run" role="status"><strong>Shadow run:<\/strong> oncall-escalator pages nobody\./);
    assert.match(readFileSync(join(d.home, 'up.log'), 'utf8'), /SHADOW RUN: oncall-escalator pages nobody/);
    assert.deepEqual(auditRows(d.home).find((r) => r.kind === 'runtime.started')?.data.shadow, ['oncall-escalator']);
  });

  it('svc shadow report lists who would have been woken, per alert', async () => {
    const text = await svc(['shadow', 'report']);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.split('\n');
    assert.match(lines[0] ?? '', /^OPENED +SEV +ALERT +WOULD HAVE WOKEN$/);
    assert.equal(lines.filter((l) => / P1 .* alice \+\d+s oncall-dm$/.test(l)).length, 2, text.stdout);
    assert.match(text.stdout, / P1 +QueueBacklog\b.* alice \+\d+s oncall-dm; bob \+([2-9]|\d\d+)s oncall-dm\n/, 'the escalation, seconds after the opening');
    const json = await svc(['shadow', 'report', '--json', '--since', '1h']);
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as { shadowAgents: string[];
      items: Array<{ incidentKey: string; notices: Array<{ person: string; login: string | null }> }> };
    assert.deepEqual(answer.shadowAgents, ['oncall-escalator']);
    assert.deepEqual(answer.items.map((a) => a.incidentKey).sort(), ['{}:{alertname="DiskFull"}', '{}:{alertname="HighLatency"}', '{}:{alertname="QueueBacklog"}']);
    assert.deepEqual(answer.items.map((a) => a.notices.map((n) => [n.person, n.login])), [[['alice', 'alice@example.com']], [['alice', 'alice@example.com']],
      [['alice', 'alice@example.com'], ['bob', null]]]);
  });

  for (const [vendor, noticeMs] of [['opsgenie', OPSGENIE_DISK_NOTICE], ['pagerduty', PAGERDUTY_DISK_NOTICE]] as const) {
    it(`--compare ${vendor}: paged by both alike, by both to different people, by ${vendor} only, by svc only`, async () => {
      // The export's DiskFull notice 10 s before svc's: the other alerts keep their places around it.
      const dir = shifted(join(FIXTURES, vendor), join(d.dir, `${vendor}-export`), diskFirstNoticeMs - 10_000 - noticeMs);
      const json = await svc(['shadow', 'report', '--compare', dir, '--json']);
      assert.equal(json.code, 0, json.stderr);
      const c = JSON.parse(json.stdout) as { oldPager: string; alerts: Compared[]; summary: Record<string, unknown> };
      assert.equal(c.oldPager, vendor);
      const by = (title: string): Compared | undefined => c.alerts.find((a) => a.title.startsWith(title));
      assert.deepEqual([by('DiskFull')?.paged, by('DiskFull')?.samePeople, by('DiskFull')?.old?.people, by('DiskFull')?.delaySeconds],
        ['both', true, ['alice'], 10]);
      assert.deepEqual([by('HighLatency')?.paged, by('HighLatency')?.samePeople, by('HighLatency')?.svc?.people, by('HighLatency')?.old?.people],
        ['both', false, ['alice'], ['bob']]);
      assert.deepEqual([by('CertExpiry')?.paged, by('CertExpiry')?.old?.people], ['old-only', ['alice']]);
      assert.deepEqual([by('QueueBacklog')?.paged, by('QueueBacklog')?.svc?.people], ['svc-only', ['alice', 'bob']]);
      assert.deepEqual([c.summary.both, c.summary.svcOnly, c.summary.oldOnly, c.summary.differentPeople], [2, 1, 1, 1]);

      const text = await svc(['shadow', 'report', '--compare', dir]);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^OPENED +ALERT +PAGED +DELAY +WHO WAS TOLD\n/);
      assert.match(text.stdout, new RegExp(`\\n4 alert\\(s\\): 2 paged by both, 1 by svc only, 1 by ${vendor} only\\nof those paged by both, 1 told different people\\n`));
    });
  }

  it('an export it cannot read exits 2 naming the file and the JSON path; the daemon is not asked', async () => {
    const dir = join(d.dir, 'broken-export');
    cpSync(join(FIXTURES, 'pagerduty'), dir, { recursive: true });
    const entries = JSON.parse(readFileSync(join(dir, 'log_entries.json'), 'utf8')) as { log_entries: Array<Record<string, unknown>> };
    (entries.log_entries[2] as Record<string, unknown>).created_at = 1795428012;
    writeFileSync(join(dir, 'log_entries.json'), JSON.stringify(entries));
    const r = await svc(['shadow', 'report', '--compare', dir, '--url', 'http://127.0.0.1:9']);
    assert.deepEqual([r.code, r.stdout, r.stderr],
      [2, '', 'svc shadow report: log_entries.json: $.log_entries[2].created_at: expected an ISO-8601 time, found the number 1795428012\n']);
  });
});
