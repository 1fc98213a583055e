/**
 * Who is on call, through the built daemon (contract §17.6, §17.9): `svc oncall` reads GET /oncall,
 * `svc oncall export` writes GET /oncall/<schedule>.ics, from the scaffold's oncall.example.yaml.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { auditRows, readJsonLines } from './support/store.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { waitFor } from './support/wait.js';

/** `2026-11-26 09:00`: an instant as the schedule's people read it, in Europe/Berlin (to the minute). */
const berlin = (ms: number): string => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit',
  hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ms);

describe('svc oncall against the running daemon', () => {
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let env: NodeJS.ProcessEnv;
  const svc = (...args: string[]) => runSvc(args, { env, cwd: agent.dir });

  before(async () => {
    agent = await scaffoldAgent(t);
    renameSync(join(agent.dir, 'oncall.example.yaml'), join(agent.dir, 'oncall.yaml'));
    // publicUrl: calendar URLs point at the control plane itself (there is no team console here, §24.7).
    appendAgentYaml(agent.dir, `controlPlane:\n  bind: 127.0.0.1\n  port: ${agent.cpPort}\n  publicUrl: http://127.0.0.1:${agent.cpPort}/`);
    env = { ...t.env, SVC_METRICS_PORT: '', USER: 'dana' };
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await svc('down');
    t.cleanup();
  });

  it('a table: schedule, person, source, until', async () => {
    // Wednesday 2026-11-25: alice's week (Mondays 09:00 Berlin = 08:00Z), bob's from 2026-11-30.
    const r = await svc('oncall', '--at', '2026-11-25T12:00:00Z');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, [
      'on call at 2026-11-25 12:00Z (times in UTC)',
      'SCHEDULE  PERSON  SOURCE    UNTIL',
      'primary   alice   rotation  2026-11-30 08:00Z',
      '',
    ].join('\n'));
    const later = await svc('oncall', '--schedule', 'primary', '--at', String(Date.parse('2026-12-01T00:00:00Z')));
    assert.match(later.stdout, /^primary {3}bob {5}rotation {2}2026-12-07 08:00Z$/m);
  });

  it('--tz and $TZ (§24.5): times in that zone with the zone printed; a time typed without a zone is refused naming the form', async () => {
    const berlin = await svc('oncall', '--at', '2026-11-25T12:00:00Z', '--tz', 'Europe/Berlin');
    assert.equal(berlin.code, 0, berlin.stderr);
    assert.equal(berlin.stdout, [
      'on call at 2026-11-25 13:00+01:00 (times in Europe/Berlin)',
      'SCHEDULE  PERSON  SOURCE    UNTIL',
      'primary   alice   rotation  2026-11-30 09:00+01:00',
      '',
    ].join('\n'));
    const fromEnv = await runSvc(['oncall', '--at', '2026-11-25T12:00:00Z'], { env: { ...env, TZ: 'America/New_York' }, cwd: agent.dir });
    assert.equal(fromEnv.stdout.split('\n')[0], 'on call at 2026-11-25 07:00-05:00 (times in America/New_York)');
    assert.match(fromEnv.stdout, /^primary {3}alice {3}rotation {2}2026-11-30 03:00-05:00$/m);
    const zoneless = await svc('oncall', '--at', '2026-11-25T12:00');
    assert.deepEqual([zoneless.code, zoneless.stderr], [2, 'svc oncall: --at: "2026-11-25T12:00" has no time zone; '
      + 'write ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds\n']);
    const unknown = await svc('oncall', '--tz', 'Mars/Olympus');
    assert.deepEqual([unknown.code, unknown.stderr],
      [2, 'svc oncall: --tz "Mars/Olympus" is not a time zone the tz database knows (such as UTC or Europe/Berlin)\n']);
  });

  it('--json: the GET /oncall document', async () => {
    const r = await svc('oncall', '--json', '--at', '2026-11-25T12:00:00Z');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      at: '2026-11-25T12:00:00.000Z',
      schedules: [{ id: 'primary', agentId: 'oncall-escalator', timeZone: 'Europe/Berlin',
        onCall: [{ person: 'alice', source: 'rotation', until: '2026-11-30T08:00:00.000Z' }],
        nextHandoff: { at: '2026-11-30T08:00:00.000Z', person: 'bob' } }],
    });
  });

  it('export: the next 28 days as iCalendar on standard output', async () => {
    const r = await svc('oncall', 'export', 'primary');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n'), r.stdout.slice(0, 80));
    assert.ok(r.stdout.endsWith('END:VCALENDAR\r\n'));
    // Weekly shifts: the current one and four or five more in 28 days.
    const events = r.stdout.split('BEGIN:VEVENT\r\n').length - 1;
    assert.ok(events === 5 || events === 6, String(events));
    assert.match(r.stdout, /\r\nSUMMARY:On call: (Alice|Bob) Example \(primary\)\r\n/);
  });

  it('export --from --days (§24.7): the shifts cut to exactly that window; --days outside 1..366 and a zoneless --from are usage errors', async () => {
    const r = await svc('oncall', 'export', 'primary', '--from', '2026-11-25T12:00:00Z', '--days', '10');
    assert.equal(r.code, 0, r.stderr);
    // alice's week from the window's start, bob's from Monday 09:00 Berlin, alice's again cut at the window's end.
    assert.deepEqual([...r.stdout.matchAll(/DTSTART:(\w+)\r\nDTEND:(\w+)/g)].map((m) => [m[1], m[2]]), [
      ['20261125T120000Z', '20261130T080000Z'], ['20261130T080000Z', '20261205T120000Z'],
    ]);
    for (const [args, error] of [
      [['--days', '0'], 'svc oncall export: --days must be a whole number of days, 1 to 366\n'],
      [['--days', '367'], 'svc oncall export: --days must be a whole number of days, 1 to 366\n'],
      [['--from', '2026-11-25 12:00'], 'svc oncall export: --from: "2026-11-25 12:00" has no time zone; '
        + 'write ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds\n'],
    ] as const) {
      const bad = await svc('oncall', 'export', 'primary', ...args);
      assert.deepEqual([bad.code, bad.stderr], [2, error]);
    }
  });

  it('calendar-url (§24.7): a URL a calendar app polls without a token; a person\'s shows only their shifts; a wrong key is refused; issuing is audited; rotating the secret revokes', async () => {
    const whole = await svc('oncall', 'calendar-url', 'primary');
    assert.equal(whole.code, 0, whole.stderr);
    const url = whole.stdout.trim();
    assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${agent.cpPort}/oncall/primary\\.ics\\?key=[A-Za-z0-9_-]{43}$`));
    assert.match(whole.stderr, /anyone with this URL can read schedule primary/);
    const bobs = await svc('oncall', 'calendar-url', 'primary', '--person', 'bob', '--json');
    const issued = JSON.parse(bobs.stdout) as { url: string; person: string };
    assert.equal(issued.person, 'bob');
    assert.match(issued.url, /\?key=bob\.[A-Za-z0-9_-]{43}$/);
    const all = await fetch(url);
    assert.equal(all.status, 200);
    assert.equal(all.headers.get('content-type'), 'text/calendar; charset=utf-8');
    const summaries = (text: string): string[] => [...text.matchAll(/SUMMARY:On call: (\w+)/g)].map((m) => m[1] ?? '');
    assert.deepEqual([...new Set(summaries(await all.text()))].sort(), ['Alice', 'Bob']);
    const only = await (await fetch(issued.url)).text();
    assert.ok(summaries(only).length > 0 && summaries(only).every((n) => n === 'Bob'), only);
    const forged = await fetch(url.replace(/key=.*/, `key=${'A'.repeat(43)}`));
    assert.deepEqual([forged.status, await forged.json()], [403, { error: 'invalid calendar key' }]);
    const swapped = await fetch(issued.url.replace('key=bob.', 'key=alice.'));
    assert.equal(swapped.status, 403, 'a person\'s key names that person only');
    const rows = auditRows(t.home).filter((r) => r.kind === 'schedule.calendar.issued');
    assert.deepEqual(rows.map((r) => [r.actor, r.data.schedule, r.data.person]), [['cli:dana', 'primary', null], ['cli:dana', 'primary', 'bob']]);
    // Rotating the secret revokes every URL issued before, at once.
    const rotated = await runSvc(['secret', 'set', 'oncall/calendar-key'], { env, cwd: agent.dir, input: 'f'.repeat(64) });
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.equal((await fetch(url)).status, 403);
    const missing = await svc('oncall', 'calendar-url', 'nope');
    assert.deepEqual([missing.code, missing.stderr], [1, 'svc oncall calendar-url: no schedule nope\n']);
  });

  it('override add: svc oncall and GET /oncall switch to the override; override rm: back to the rotation; both audited', async () => {
    const at = '2026-11-25T12:00:00Z';
    const added = await svc('oncall', 'override', 'add', '--schedule', 'primary', '--person', 'bob', '--from', '2026-11-25T10:00:00Z',
      '--to', '2026-11-25T14:00:00Z', '--json');
    assert.equal(added.code, 0, added.stderr);
    // Its window is before the test's now: kept, and said to page nobody.
    assert.equal(added.stderr, 'svc oncall override add: note: it ended before now, so it pages nobody; only svc oncall --at reads it\n');
    const { id } = JSON.parse(added.stdout) as { id: string };
    const during = await svc('oncall', '--at', at);
    assert.equal(during.stdout, [
      'on call at 2026-11-25 12:00Z (times in UTC)',
      'SCHEDULE  PERSON  SOURCE    UNTIL',
      'primary   bob     override  2026-11-25 14:00Z',
      '',
    ].join('\n'));
    const doc = await fetch(`http://127.0.0.1:${agent.cpPort}/oncall?at=${encodeURIComponent(at)}`);
    assert.equal(doc.status, 200);
    const body = await doc.json() as { schedules: Array<{ onCall: unknown[] }> };
    assert.deepEqual(body.schedules[0]?.onCall, [{ person: 'bob', source: 'override', until: '2026-11-25T14:00:00.000Z' }]);
    // Outside the override's hours the rotation holds as before.
    assert.match((await svc('oncall', '--at', '2026-11-25T15:00:00Z')).stdout, /^primary {3}alice {3}rotation {2}2026-11-30 08:00Z$/m);

    const removed = await svc('oncall', 'override', 'rm', id);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.stdout, `override ${id} removed\n`);
    assert.match((await svc('oncall', '--at', at)).stdout, /^primary {3}alice {3}rotation {2}2026-11-30 08:00Z$/m);
    const again = await svc('oncall', 'override', 'rm', id);
    assert.equal(again.code, 1, 'an override removed twice is refused');

    const rows = auditRows(t.home).filter((r) => r.data.overrideId === id);
    assert.deepEqual(rows.map((r) => [r.kind, r.actor, r.data.person]), [
      ['schedule.override.added', 'cli:dana', 'bob'], ['schedule.override.removed', 'cli:dana', 'bob']]);
    assert.deepEqual([rows[0]?.data.from, rows[0]?.data.to], ['2026-11-25T10:00:00.000Z', '2026-11-25T14:00:00.000Z']);
  });

  it('override ls: the ids of the overrides to come in a table, soonest first; --json one object a line; an override removed is gone from it', async () => {
    // In January 2027: neither has ended whenever this runs, and neither changes who is on call now.
    const add = async (person: string, from: string, to: string) => {
      const r = await svc('oncall', 'override', 'add', '--schedule', 'primary', '--person', person, '--from', from, '--to', to, '--json');
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { id: string }).id;
    };
    const later = await add('alice', '2027-01-09T08:00:00Z', '2027-01-10T08:00:00Z');
    const sooner = await add('bob', '2027-01-02T00:00+01:00', '2027-01-03T00:00+01:00');
    const ls = await svc('oncall', 'override', 'ls');
    assert.equal(ls.code, 0, ls.stderr);
    assert.equal(ls.stdout, [
      'ID             SCHEDULE  PERSON  FROM               UNTIL              BY',
      `${sooner}  primary   bob     2027-01-01 23:00Z  2027-01-02 23:00Z  cli:dana`,
      `${later}  primary   alice   2027-01-09 08:00Z  2027-01-10 08:00Z  cli:dana`,
      '',
    ].join('\n'));
    assert.ok(ls.stdout.split('\n').every((line) => line.length <= 80), 'it fits an 80-column terminal');

    const json = await svc('oncall', 'override', 'ls', '--json', '--schedule', 'primary');
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(json.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((o) => ({ ...o, createdAt: typeof o.createdAt })), [
      { id: sooner, agentId: 'oncall-escalator', schedule: 'primary', person: 'bob', from: '2027-01-01T23:00:00Z', to: '2027-01-02T23:00:00Z',
        createdBy: 'cli:dana', createdAt: 'string' },
      { id: later, agentId: 'oncall-escalator', schedule: 'primary', person: 'alice', from: '2027-01-09T08:00:00Z', to: '2027-01-10T08:00:00Z',
        createdBy: 'cli:dana', createdAt: 'string' }]);

    assert.equal((await svc('oncall', 'override', 'rm', sooner)).code, 0);
    const after = await svc('oncall', 'override', 'ls');
    assert.equal(after.stdout.includes(sooner), false);
    assert.match(after.stdout, new RegExp(`^${later} {2}primary {3}alice {3}2027-01-09 08:00Z {2}2027-01-10 08:00Z {2}cli:dana$`, 'm'));
    assert.equal((await svc('oncall', 'override', 'rm', later)).code, 0);
    assert.equal((await svc('oncall', 'override', 'ls')).stdout, 'no overrides in force or to come\n');

    const unknown = await svc('oncall', 'override', 'ls', '--schedule', 'nope');
    assert.deepEqual([unknown.code, unknown.stderr], [1, 'svc oncall override ls: no schedule nope\n']);
    const bad = await svc('oncall', 'override', 'ls', '--agent', 'Not An Id');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^svc oncall override ls: --agent must match /);

    const idle = tempEnv(); // a home whose daemon is not running
    try {
      const down = await runSvc(['oncall', 'override', 'ls'], { env: idle.env, cwd: agent.dir });
      assert.deepEqual([down.code, down.stderr], [1, 'svc oncall override ls: svc is not running; on-call changes go through the running daemon (svc up)\n']);
    } finally {
      idle.cleanup();
    }
  });

  it('"I take over now" (--from 5 s ago): the new person is told at once on the file channel; rm hands back and tells the rotation\'s person', async () => {
    const now = JSON.parse((await svc('oncall', '--json')).stdout) as { schedules: Array<{ onCall: Array<{ person: string; until: string }> }> };
    const rotation = now.schedules[0]?.onCall[0] as { person: string; until: string };
    const taker = rotation.person === 'alice' ? 'bob' : 'alice';
    const toMs = Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000;
    const added = await svc('oncall', 'override', 'add', '--schedule', 'primary', '--person', taker, '--from', new Date(Date.now() - 5000).toISOString(),
      '--to', new Date(toMs).toISOString(), '--json');
    assert.equal(added.code, 0, added.stderr);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const lines = () => readJsonLines(join(agent.dir, 'out', 'oncall-dm.jsonl'));
    const told = await waitFor(`${taker} told`, () => lines().find((l) => l.deliveryId === `handoff.primary.${id}-add.${taker}.oncall-dm`), 60_000);
    assert.deepEqual([told.to, told.text], [taker, `You are on call for primary until ${berlin(toMs)} Europe/Berlin.`]);

    const removed = await svc('oncall', 'override', 'rm', id);
    assert.equal(removed.code, 0, removed.stderr);
    const back = await waitFor(`${rotation.person} told`, () => lines().find((l) => l.deliveryId === `handoff.primary.${id}-rm.${rotation.person}.oncall-dm`),
      60_000);
    assert.equal(back.text, `You are on call for primary until ${berlin(Date.parse(rotation.until))} Europe/Berlin.`);
    const rows = auditRows(t.home);
    // Each notice is written with its override, in one commit: the row right after the override's.
    const rowAfter = (kind: string) => rows[rows.findIndex((r) => r.kind === kind && r.data.overrideId === id) + 1];
    assert.deepEqual([rowAfter('schedule.override.added')?.kind, rowAfter('schedule.override.added')?.data.person], ['schedule.handoff', taker]);
    assert.deepEqual([rowAfter('schedule.override.removed')?.kind, rowAfter('schedule.override.removed')?.data.person], ['schedule.handoff', rotation.person]);
  });

  it('bad input: a usage error before any request; an unknown schedule exits 1 naming it', async () => {
    const bad = await svc('oncall', '--at', 'tomorrow');
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'svc oncall: --at: expected ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds\n');
    const none = await svc('oncall', '--schedule', 'nope');
    assert.equal(none.code, 1);
    assert.deepEqual([none.stdout, none.stderr], ['', 'svc oncall: no schedule nope\n']);
    const noAgent = await svc('oncall', '--agent', 'nope');
    assert.deepEqual([noAgent.code, noAgent.stdout, noAgent.stderr], [1, '', 'svc oncall: no agent nope has schedules\n'], 'not "no agent has an oncall.yaml"');
    const missing = await svc('oncall', 'export', 'nope');
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'svc oncall export: no schedule "nope"\n');
  });
});
