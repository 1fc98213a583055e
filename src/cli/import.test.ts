import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { cliHarness } from '../../test/support/cli.js';
import { startFakeVendorApi } from '../../test/support/fake-vendor-api.js';
import { FIXTURE_NOW, fixtureCopy, fixtureDir } from '../../test/support/import-fixtures.js';
import { fakeClock } from '../core/clock.js';
import { runCli } from './program.js';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'svc-import-cli-'));

async function svcImport(args: string[], env: NodeJS.ProcessEnv = {}, cwd = fresh()) {
  const h = cliHarness(env, cwd);
  const code = await runCli(['import', ...args], h.ctx);
  return { code, out: h.out(), err: h.err(), cwd };
}

/** A PagerDuty export svc can say exactly: one person, one layer, one policy. */
function exactExport(): string {
  const dir = fresh();
  const write = (path: string, body: unknown): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), JSON.stringify(body));
  };
  const ref = (type: string, id: string) => ({ id, type: `${type}_reference`, summary: id });
  write('users.json', { users: [{ id: 'PU1', name: 'Ann', email: 'ann@example.com', time_zone: 'Europe/Paris',
    contact_methods: [{ id: 'PC1', type: 'email_contact_method', label: 'Work', address: 'ann@example.com' }],
    notification_rules: [{ id: 'PR1', type: 'assignment_notification_rule', start_delay_in_minutes: 0, urgency: 'high', contact_method: ref('email_contact_method', 'PC1') }] }],
  limit: 25, offset: 0, more: false });
  write('schedules.json', { schedules: [{ id: 'PS1', name: 'Ops', time_zone: 'Europe/Paris' }], more: false });
  write('schedules/PS1.json', { schedule: { id: 'PS1', name: 'Ops', time_zone: 'Europe/Paris', schedule_layers: [{ id: 'PL1', name: 'Layer 1',
    start: '2026-01-05T09:00:00+01:00', end: null, rotation_virtual_start: '2026-01-05T09:00:00+01:00', rotation_turn_length_seconds: 604800,
    users: [{ user: ref('user', 'PU1') }], restrictions: [] }] } });
  write('schedules/PS1/overrides.json', { overrides: [] });
  write('escalation_policies.json', { escalation_policies: [{ id: 'PE1', name: 'Ops', num_loops: 1,
    escalation_rules: [{ id: 'PX1', escalation_delay_in_minutes: 30, targets: [ref('schedule', 'PS1')] }] }], more: false });
  return dir;
}

describe('svc import', () => {
  it('exits 3 when something was approximated, writing oncall.yaml and import-report.md beside it', async () => {
    const r = await svcImport(['opsgenie', fixtureDir('opsgenie'), '--at', FIXTURE_NOW, '--agent', 'oncall-escalator']);
    assert.equal(r.code, 3, r.err);
    assert.match(r.out, /^imported 4 people, 3 schedules, 2 policies, 1 override from Opsgenie\n31 mapped, 6 approximated, 7 not mapped\nwrote .*oncall\.yaml and .*import-report\.md\nnext: 1\. add the channels import-report\.md lists to channels\.yaml\n {6}2\. svc check\n {6}3\. once svc runs, the override commands import-report\.md lists\n$/);
    assert.deepEqual(readdirSync(r.cwd).sort(), ['import-report.md', 'oncall.yaml'], 'no temporary file left');
    assert.match(readFileSync(join(r.cwd, 'oncall.yaml'), 'utf8'), /^# Imported from Opsgenie by svc import at 2026-03-20T12:00:00Z/);
    assert.match(readFileSync(join(r.cwd, 'import-report.md'), 'utf8'), /--to 2026-03-26T08:00:00Z --agent oncall-escalator\n/);
  });

  it('exits 0 when everything mapped exactly', async () => {
    const r = await svcImport(['pagerduty', exactExport(), '--out', 'ops/oncall.yaml', '--at', FIXTURE_NOW], {}, (() => { const d = fresh(); mkdirSync(join(d, 'ops')); return d; })());
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^imported 1 person, 1 schedule, 1 policy, 0 overrides from PagerDuty\n8 mapped, 0 approximated, 0 not mapped\n.*\nnext: 1\. add the channels import-report\.md lists to channels\.yaml\n {6}2\. svc check\n$/);
    assert.ok(existsSync(join(r.cwd, 'ops', 'import-report.md')));
  });

  it('exits 2 on unreadable input, naming the file and JSON path, and writes nothing', async () => {
    const dir = fixtureCopy('pagerduty');
    writeFileSync(join(dir, 'schedules/PSCHB02.json'), readFileSync(join(dir, 'schedules/PSCHB02.json'), 'utf8').replace('"rotation_turn_length_seconds": 604800', '"rotation_turn_length_seconds": "weekly"'));
    const r = await svcImport(['pagerduty', dir, '--at', FIXTURE_NOW]);
    assert.equal(r.code, 2);
    assert.equal(r.err, 'svc import: unreadable input: schedules/PSCHB02.json: $.schedule.schedule_layers[0].rotation_turn_length_seconds: expected a number, found the string "weekly"\n');
    assert.deepEqual(readdirSync(r.cwd), []);
    writeFileSync(join(dir, 'escalation_policies.json'), '{"escalation_policies": [');
    assert.match((await svcImport(['pagerduty', dir])).err, /unreadable input: (schedules\/PSCHB02|escalation_policies)\.json: \$:/);
  });

  it('--verify exits 1 and lists each difference from the vendor\'s rendering', async () => {
    const dir = fixtureCopy('grafana-oncall');
    const path = join(dir, 'api/v1/schedules/SDATAB4SE2/final_shifts.json');
    const shifts = JSON.parse(readFileSync(path, 'utf8')) as { results: Array<Record<string, string>> };
    (shifts.results[1] as Record<string, string>).user_pk = 'UDAVE6Y1R4T';
    writeFileSync(path, JSON.stringify(shifts));
    const same = await svcImport(['grafana-oncall', fixtureDir('grafana-oncall'), '--at', FIXTURE_NOW, '--verify', fixtureDir('grafana-oncall')]);
    assert.equal(same.code, 3, same.err);
    assert.match(same.out, /verify platform-primary: identical with Grafana OnCall over 2026-03-20T12:00:00Z – 2026-04-17T12:00:00Z\n/);
    const r = await svcImport(['grafana-oncall', dir, '--at', FIXTURE_NOW, '--verify', dir]);
    assert.equal(r.code, 1);
    assert.match(r.out, /verify database: 1 difference\(s\) with Grafana OnCall/);
    assert.match(r.out, /SCHEDULE +FROM +TO +GRAFANA ONCALL +SVC\ndatabase +2026-03-21T14:00:00Z +2026-03-21T20:00:00Z +dave +alice\n/);
    assert.match(readFileSync(join(r.cwd, 'import-report.md'), 'utf8'), /\| database \| 2026-03-21T14:00:00Z \| 2026-03-21T20:00:00Z \| dave \| alice \|/);
    const nothing = await svcImport(['grafana-oncall', fixtureDir('grafana-oncall'), '--at', FIXTURE_NOW, '--verify', exactExport()]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.err, /no Grafana OnCall rendering of an imported schedule is there/);
  });

  it('--verify of an export taken weeks ago, without --at: the differences come with the --at that judges as of the export', async () => {
    // Eight months on, the override of 2026-03-25 has ended: it is left out of oncall.yaml, but Opsgenie's rendering has it.
    const h = cliHarness({}, fresh(), fakeClock(Date.parse('2026-11-29T11:00:00Z')));
    const code = await runCli(['import', 'opsgenie', fixtureDir('opsgenie'), '--verify', fixtureDir('opsgenie')], h.ctx);
    assert.equal(code, 1, h.err());
    assert.match(h.out(), /\nplatform-primary +2026-03-25T17:00:00Z +2026-03-26T08:00:00Z +bob +dave\n/);
    assert.ok(h.out().endsWith('the rendering starts at 2026-03-20T12:00:00Z, before now: what had ended by now (overrides, shifts) was left out of oncall.yaml, '
      + 'which alone makes such differences; --at 2026-03-20T12:00:00Z judges as of the export\n'), h.out());
  });

  it('refuses usage it cannot honour before reading anything', async () => {
    const cwd = fresh();
    writeFileSync(join(cwd, 'oncall.yaml'), 'people: []\n');
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['victorops', 'x'], {}, /unknown source "victorops" \(sources: opsgenie, pagerduty, grafana-oncall\)/],
      [['opsgenie', fixtureDir('opsgenie')], {}, /oncall\.yaml exists; --force replaces it/],
      [['opsgenie', 'x', '--out', 'new.yaml', '--api', 'https://api.opsgenie.com'], {}, /--api URL and --token-env VAR go together/],
      [['opsgenie', 'x', '--out', 'new.yaml', '--api', 'https://api.opsgenie.com', '--token-env', 'OG_KEY'], { OG_KEY: '' }, /--token-env OG_KEY: the variable is not set/],
      [['opsgenie', 'x', '--out', 'new.yaml', '--channels', 'fax=f'], {}, /--channels: unknown contact kind "fax"/],
      [['opsgenie', 'x', '--out', 'new.yaml', '--at', 'yesterday'], {}, /--at: expected ISO-8601 with a zone/],
    ];
    for (const [args, env, message] of cases) {
      const r = await svcImport(args, env, cwd);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, message);
    }
    assert.equal(readFileSync(join(cwd, 'oncall.yaml'), 'utf8'), 'people: []\n', 'the existing file is untouched');
    const forced = await svcImport(['opsgenie', fixtureDir('opsgenie'), '--force', '--at', FIXTURE_NOW], {}, cwd);
    assert.equal(forced.code, 3);
  });

  it('fetches live into an empty DIR with the token from the environment, and imports it', async () => {
    const api = await startFakeVendorApi('pagerduty', fixtureDir('pagerduty'), { token: 'pd-key-5f60', pageSize: 2 });
    try {
      const cwd = fresh();
      const r = await svcImport(['pagerduty', 'export', '--api', api.url, '--token-env', 'PD_KEY', '--at', FIXTURE_NOW, '--verify', 'export'], { PD_KEY: 'pd-key-5f60' }, cwd);
      assert.equal(r.code, 3, r.err);
      assert.match(r.out, /verify database: identical with PagerDuty/);
      assert.ok(existsSync(join(cwd, 'export', 'users.2.json')));
      assert.ok(!(r.out + r.err).includes('pd-key-5f60'));
      const elsewhere = fresh();
      mkdirSync(join(elsewhere, 'export'));
      writeFileSync(join(elsewhere, 'export', 'users.json'), '{}');
      const again = await svcImport(['pagerduty', 'export', '--api', api.url, '--token-env', 'PD_KEY'], { PD_KEY: 'pd-key-5f60' }, elsewhere);
      assert.equal(again.code, 2);
      assert.match(again.err, /export is not empty/);
    } finally {
      await api.close();
    }
  });
});
