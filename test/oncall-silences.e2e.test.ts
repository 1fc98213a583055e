/**
 * `svc silence add|ls|expire` through the built daemon's admin socket (contract §17.8): each audited,
 * a silence longer than a week or a bad matcher a usage error before anything is sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { metricValue, postAlert } from './support/http.js';
import { alertInGroup, oncallYaml } from './support/oncall-yaml.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { waitFor } from './support/wait.js';

describe('svc silence against the running daemon', () => {
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let env: NodeJS.ProcessEnv;
  const svc = (...args: string[]) => runSvc(args, { env, cwd: agent.dir });

  before(async () => {
    agent = await scaffoldAgent(t);
    renameSync(join(agent.dir, 'oncall.example.yaml'), join(agent.dir, 'oncall.yaml'));
    env = { ...t.env, SVC_METRICS_PORT: '', USER: 'carol' };
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await svc('down');
    t.cleanup();
  });

  it('add, ls, expire: each an audit row naming who; an expired silence leaves ls', async () => {
    const added = await svc('silence', 'add', '--match', 'alertname=DiskFull', '--match', 'instance=~db-.*', '--for', '2h', '--reason', 'disk swap', '--json');
    assert.equal(added.code, 0, added.stderr);
    const s = JSON.parse(added.stdout) as { id: string; matchers: string[]; reason: string; createdBy: string; startsAt: string; endsAt: string };
    assert.deepEqual(s.matchers, ['alertname=DiskFull', 'instance=~db-.*']);
    assert.equal(s.createdBy, 'cli:carol');
    assert.equal(Date.parse(s.endsAt) - Date.parse(s.startsAt), 7_200_000);

    const ls = await svc('silence', 'ls', '--json');
    assert.equal(ls.code, 0, ls.stderr);
    assert.deepEqual(ls.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id), [s.id]);
    const table = await svc('silence', 'ls');
    assert.match(table.stdout, new RegExp(`^ID +MATCHERS +AGENT +UNTIL +BY +REASON\\n${s.id} +alertname=DiskFull instance=~db-\\.\\* +\\* +\\S+ +cli:carol +disk swap\\n$`));

    const expired = await svc('silence', 'expire', s.id);
    assert.equal(expired.code, 0, expired.stderr);
    assert.equal(expired.stdout, `silence ${s.id} expired\n`);
    assert.equal((await svc('silence', 'ls')).stdout, 'no live silences\n');

    const rows = auditRows(t.home).filter((r) => r.data.silenceId === s.id);
    assert.deepEqual(rows.map((r) => [r.kind, r.actor]), [['silence.created', 'cli:carol'], ['silence.expired', 'cli:carol']]);
  });

  it('bad input: longer than a week or a bad matcher is exit 2; an unknown silence is exit 1', async () => {
    const long = await svc('silence', 'add', '--match', 'a=b', '--for', '8d', '--reason', 'x');
    assert.equal(long.code, 2);
    assert.equal(long.stderr, 'svc silence add: --for 8d is longer than 1w; silence at most a week at a time\n');
    const bad = await svc('silence', 'add', '--match', 'host=~(db)-\\1', '--for', '1h', '--reason', 'x');
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'svc silence add: --match "host=~(db)-\\\\1": the regular expression of host is not RE2 syntax '
      + '(invalid escape sequence: `\\1`); lookarounds and backreferences are not supported\n');
    const none = await svc('silence', 'expire', 'sdeadbeef');
    assert.equal(none.code, 1);
    assert.equal(none.stderr, 'svc silence expire sdeadbeef: no silence sdeadbeef\n');
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'silence.created').length, 1);
  });
});

describe('a silence suppresses pages; once expired, the next alert pages', () => {
  let a: Daemon | undefined;
  after(async () => { await a?.stop(); });

  it('silenced: an event.suppressed row and the counter, no page, no file line; expired: the next alert pages', async () => {
    a = await startDaemon({ files: { 'oncall.yaml': oncallYaml('1h', '1h') } });
    const d = a;
    const names = [...new Set((JSON.parse(d.fixture) as { alerts: Array<{ labels: Record<string, string> }> }).alerts.map((x) => x.labels.alertname ?? ''))];
    const matcher = `alertname=~${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}`;
    const svc = (...args: string[]) => runSvc(args, { env: d.env, cwd: d.dir });
    const added = await svc('silence', 'add', '--match', matcher, '--for', '1h', '--reason', 'maintenance', '--json');
    assert.equal(added.code, 0, added.stderr);
    const silenceId = (JSON.parse(added.stdout) as { id: string }).id;

    assert.equal((await postAlert(d.url, d.secret, d.fixture, 'quiet-1')).status, 202);
    const row = await waitFor('event.suppressed audited', () => auditRows(d.home).find((r) => r.kind === 'event.suppressed'), 60_000);
    assert.deepEqual(row.data.silenceIds, [silenceId]);
    // Stored suppressed (§17.8), listed by /events, never claimed: no triage row names it.
    const eventId = String(row.data.eventId);
    assert.deepEqual(queryStore<{ status: string }>(d.home, 'SELECT status FROM events WHERE id = ?', eventId), [{ status: 'suppressed' }]);
    const listed = await (await fetch(`${d.cp}/events?status=suppressed`)).json() as { items: Array<{ id: string; status: string }> };
    assert.deepEqual(listed.items.map((e) => [e.id, e.status]), [[eventId, 'suppressed']]);
    // STATUS says suppressed (STATE, the stored state, is a column a narrow terminal drops); --status filters.
    const table = await runSvc(['events', '--status', 'suppressed'], { env: d.env, cwd: d.dir });
    assert.equal(table.code, 0, table.stderr);
    const [header, only, ...more] = table.stdout.trimEnd().split('\n');
    assert.deepEqual([header?.split(/\s+/).slice(0, 3), more], [['TS', 'ID', 'STATUS'], []]);
    assert.match(only ?? '', new RegExp(`^\\S+\\s+${eventId.slice(0, 8)}\\S*\\s+suppressed\\s`));
    const metrics = await (await fetch(`${d.cp}/metrics`)).text();
    assert.equal(metricValue(metrics, 'svc_events_suppressed_total', { agent: 'oncall-escalator' }), 1);
    assert.equal(queryStore<{ n: number }>(d.home, 'SELECT count(*) AS n FROM pages')[0]?.n, 0);
    assert.deepEqual(readJsonLines(join(d.dir, 'out', 'oncall-dm.jsonl')), []);

    assert.equal((await svc('silence', 'expire', silenceId)).code, 0);
    assert.equal((await postAlert(d.url, d.secret, d.fixture, 'loud-1')).status, 202);
    await waitFor('alice paged after the silence expired', () => readJsonLines(join(d.dir, 'out', 'oncall-dm.jsonl')).find((l) => l.to === 'alice'),
      60_000);
    assert.equal(auditRows(d.home).filter((r) => r.kind === 'event.suppressed').length, 1);
    assert.equal(auditRows(d.home).filter((r) => r.kind === 'triage.decision' && r.data.eventId === eventId).length, 0, 'the suppressed event was never triaged');

    // /status (contract §17.9): the open page, the schedule, no heartbeats in this oncall.yaml.
    const oncall = await waitFor('/status counts the open page', async () => {
      const status = await (await fetch(`${d.cp}/status`)).json() as { agents: Array<{ oncall: { pagesOpen: number } | null }> };
      const o = status.agents[0]?.oncall;
      return o !== undefined && o !== null && o.pagesOpen === 1 ? o : false;
    }, 60_000);
    assert.deepEqual(oncall, { pagesOpen: 1, schedules: ['primary'], heartbeats: [] });
  });

  it('the pattern that stalled the store writer (issue 33.1): a 2,000-dash host is ingested at once, the next webhook and svc ack are answered', async () => {
    const d = a as Daemon;
    const svc = (...args: string[]) => runSvc(args, { env: d.env, cwd: d.dir });
    assert.equal((await svc('silence', 'add', '--match', 'host=~.*-.*-.*-.*-prod', '--for', '1h', '--reason', 'prod hosts')).code, 0);
    // With JavaScript's backtracking RegExp this one match took hours (O(n⁴)): every webhook answered 503 meanwhile.
    const body = JSON.parse(alertInGroup(d.fixture, 'dashes')) as { alerts: Array<{ labels: Record<string, string> }> };
    for (const alert of body.alerts) alert.labels.host = '-'.repeat(2000);
    assert.equal((await postAlert(d.url, d.secret, JSON.stringify(body), 'dashes-1')).status, 202);
    assert.equal((await postAlert(d.url, d.secret, alertInGroup(d.fixture, 'after-dashes'), 'after-1')).status, 202);
    const page = await waitFor('the dashes page opened (not silenced: the host is no prod host)', () => queryStore<{ id: string }>(d.home,
      "SELECT id FROM pages WHERE incident_key LIKE '%dashes%' AND incident_key NOT LIKE '%after%'")[0], 60_000);
    const ack = await svc('ack', page.id);
    assert.equal(ack.code, 0, ack.stderr);
  });
});
