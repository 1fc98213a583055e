/**
 * Pages against the built daemon with a file channel (contract §17.3–§17.5): a P1 alert walks two
 * steps, `svc ack` stops it, Alertmanager's resolved notification closes it and tells everyone who
 * was paged; acting on a resolved or unknown page is exit 1 with the reason. SIGKILL while a page
 * waits for its next step, then a restart: the step fires once.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../src/cli/program.js';
import { cliHarness } from './support/cli.js';
import { postAlert } from './support/http.js';
import { fileChannels, oncallYaml, personalRulesYaml, resolvedBody } from './support/oncall-yaml.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { pidAlive, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

type Line = Record<string, unknown>;
const lines = (a: ScaffoldedAgent): Line[] => readJsonLines(join(a.dir, 'out', 'oncall-dm.jsonl'));

describe('pages e2e', () => {
  const t = tempEnv();
  const stops: string[] = [];
  const daemons: Daemon[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    for (const d of daemons) await d.stop();
    t.cleanup();
  });

  it('a P1 alert walks two steps, svc ack stops it, the resolved notification closes it and tells everyone paged', async () => {
    const a = await startDaemon({ files: { 'oncall.yaml': oncallYaml('1s', '1h') } });
    daemons.push(a);
    const home = a.home;

    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'walk-1')).status, 202);
    const first = await waitFor('step 1 paged alice', () => lines(a).find((l) => l.to === 'alice'));
    const pageId = String(first.pageId);
    assert.match(pageId, /^p[a-z0-9]{12}$/);
    assert.equal(first.deliveryId, `${pageId}.1.alice.oncall-dm`);
    // What is wrong (§24.1): the summary, the instance, the alert's own links (issue 26.6), who is paged now and next, one way to act.
    const esc = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(String(first.text), new RegExp(`^${esc(`[P1] ${String(first.title)}\ncheckout-api 5xx ratio above 5% for 10 minutes\n`
      + 'Instance: checkout-api-7f9c:8080\nRunbook: https://runbooks.example.com/checkout-api/high-error-rate\n'
      + 'Source: http://prometheus.example.com:9090/graph?g0.expr=job%3Acheckout_5xx_ratio%3Arate5m+%3E+0.05\n'
      + `Alertmanager: http://alertmanager.example.com:9093\nPage ${pageId} opened.\n`)}`
      + `Paged: step 1 of 2[^\\n]*; next: [^\\n]+ at \\d\\d:\\d\\d [A-Z]{3,4} \\(in [^)]+\\)\\n${esc(`svc ack ${pageId}`)}$`));
    const second = await waitFor('step 2 paged bob', () => lines(a).find((l) => l.to === 'bob'));
    assert.equal(second.deliveryId, `${pageId}.2.bob.oncall-dm`);
    // The escalation climbed past alice: she hears whom it pages now, in the round after (§21.1).
    const passed = await waitFor('alice told of the climb', () => lines(a).find((l) => l.pageKind === 'escalated-past'));
    assert.deepEqual([passed.deliveryId, String(passed.text).split('\n').at(-2)], [`${pageId}.3.alice.oncall-dm`, `Page ${pageId} escalated to bob.`]);

    // A typo in --as is refused (it would stand in the audit trail as who acted); the page stays triggered.
    const typo = await runSvc(['ack', pageId, '--as', 'bobb'], { env: a.env, cwd: a.dir });
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, new RegExp(`^svc ack ${pageId}: no person bobb in agent [a-z-]+'s oncall\\.yaml \\(people: alice, bob\\)\\n$`));
    // An id that cannot be a page's is a usage error before anything is sent; one typed in capitals still names its page.
    const notAnId = await runSvc(['ack', 'page-1!'], { env: a.env, cwd: a.dir });
    assert.deepEqual([notAnId.code, notAnId.stderr], [2, 'svc ack: "page-1!" is not a page id (svc pages lists them)\n']);
    const shown = await runSvc(['page', pageId.toUpperCase()], { env: a.env, cwd: a.dir });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^page ${pageId} \\[P1\\] .*\ntriggered, step 2 of policy default\nopened \\S+ \\S+Z, next \\S+ \\S+Z\n1 event\\(s\\); times in UTC\n`));
    assert.ok(shown.stdout.split('\n').slice(1, 4).every((line) => line.length <= 80), shown.stdout);
    // On an 80-column terminal the title gives way before NEXT does (when the page climbs is what a person looks for).
    const pagesAt80 = async (): Promise<string[]> => {
      const h = cliHarness(a.env, a.dir);
      h.ctx.columns = () => 80;
      assert.equal(await runCli(['pages'], h.ctx), 0, h.err());
      const printed = h.out().trimEnd().split('\n');
      for (const line of printed) assert.ok(line.length <= 80, line);
      return printed;
    };
    assert.match((await pagesAt80())[0] ?? '', /^PAGE {11}SEV {2}STATE {6}STEP {2}NEXT {2,}TITLE$/);
    const ack = await runSvc(['ack', pageId, '--as', 'bob', '--note', 'on it'], { env: a.env, cwd: a.dir });
    assert.equal(ack.code, 0, ack.stderr);
    assert.equal(ack.stdout, `page ${pageId} acknowledged by bob at step 2 of 2\n`);
    const acked80 = await pagesAt80();
    assert.match(acked80[0] ?? '', /^PAGE {11}SEV {2}STATE {15}(STEP {2})?NEXT {2,}TITLE$/);
    assert.match(acked80[1] ?? '', new RegExp(`^${pageId}  P1   acknowledged \\(bob\\)  \\S`));

    assert.equal((await postAlert(a.url, a.secret, resolvedBody(a.fixture), 'walk-resolved')).status, 202);
    const resolvedLines = await waitFor('both told of the resolution', () => {
      const found = lines(a).filter((l) => l.status === 'resolved');
      return found.length === 2 ? found : false;
    });
    assert.deepEqual(resolvedLines.map((l) => l.deliveryId).sort(), [`${pageId}.5.alice.oncall-dm`, `${pageId}.5.bob.oncall-dm`]);
    // Everyone paged heard the ack too (§24.1), in round 4.
    const ackLines = lines(a).filter((l) => String(l.deliveryId).startsWith(`${pageId}.4.`));
    assert.deepEqual(ackLines.map((l) => [l.deliveryId, l.pageKind]).sort(),
      [[`${pageId}.4.alice.oncall-dm`, 'acknowledged'], [`${pageId}.4.bob.oncall-dm`, 'acknowledged']]);
    // Nothing else went out: two steps, the climb told to alice, two ack notices, two resolution notices, each deliveryId once.
    assert.deepEqual(lines(a).map((l) => l.deliveryId).sort(), [first.deliveryId, second.deliveryId, passed.deliveryId, ...ackLines.map((l) => l.deliveryId),
      ...resolvedLines.map((l) => l.deliveryId)].sort());

    const state = queryStore<{ state: string }>(home, 'SELECT state FROM pages WHERE id = ?', pageId);
    assert.deepEqual(state, [{ state: 'resolved' }]);
    const kinds = auditRows(home).filter((r) => r.data.pageId === pageId).map((r) => r.kind);
    assert.deepEqual(kinds.filter((k) => k.startsWith('page.')), ['page.opened', 'page.notified', 'page.escalated', 'page.notified',
      'page.notified', 'page.acknowledged', 'page.notified', 'page.notified', 'page.resolved', 'page.notified', 'page.notified']);
    const acked = auditRows(home).find((r) => r.kind === 'page.acknowledged');
    assert.deepEqual(acked?.data, { pageId, by: 'bob', via: 'cli', step: 2, loop: 0, note: 'on it' });

    const again = await runSvc(['ack', pageId], { env: a.env, cwd: a.dir });
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `svc ack ${pageId}: page ${pageId} is already resolved\n`);
    const unknown = await runSvc(['escalate', 'pzzzzzzzzzzzz'], { env: a.env, cwd: a.dir });
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'svc escalate pzzzzzzzzzzzz: no page pzzzzzzzzzzzz (svc pages lists them)\n');
    const unknownPage = await runSvc(['page', 'pzzzzzzzzzzzz'], { env: a.env, cwd: a.dir });
    assert.deepEqual([unknownPage.code, unknownPage.stderr], [1, 'svc page: no page pzzzzzzzzzzzz (svc pages lists them)\n']);

    // The control plane's view of it (§17.9) and the CLI's.
    const listed = await (await fetch(`${a.cp}/pages?state=resolved`)).json() as { items: Array<Record<string, unknown>>; nextCursor: null };
    assert.equal(listed.items.length, 1);
    assert.deepEqual(Object.keys(listed.items[0] ?? {}), ['id', 'agentId', 'incidentKey', 'state', 'exhausted', 'policy', 'policySha256', 'step',
      'loop', 'openedAt', 'acknowledgedAt', 'acknowledgedBy', 'resolvedAt', 'resolvedBy', 'nextEscalationAt', 'eventIds', 'title', 'severity']);
    assert.deepEqual([listed.items[0]?.acknowledgedBy, listed.items[0]?.resolvedBy, listed.items[0]?.step], ['bob', 'source', 2]);
    assert.equal((await fetch(`${a.cp}/pages?state=open`)).status, 400);
    // The refused `svc ack` of the resolved page is on its timeline too (issue 33: a refusal is audited where the page's story is).
    const withRefusal = [...kinds.filter((k) => k.startsWith('page.')), 'page.ack-refused'];
    const one = await (await fetch(`${a.cp}/pages/${pageId}`)).json() as { timeline: Array<{ kind: string; data: Record<string, unknown> }> };
    assert.deepEqual(one.timeline.map((r) => r.kind).filter((k) => k.startsWith('page.')), withRefusal);
    assert.deepEqual(one.timeline.at(-1)?.data, { pageId, via: 'cli', user: userInfo().username, action: 'ack', reason: 'resolved' });
    assert.equal((await fetch(`${a.cp}/pages/pnothere00000`)).status, 404);
    const cli = await runSvc(['page', pageId], { env: a.env, cwd: a.dir });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, new RegExp(`^page ${pageId} \\[P1\\] .*\nresolved \\(source\\), step 2 of policy default`));
    assert.match(cli.stdout, /acknowledged by bob via cli/);
    // Times in the reader's zone, the zone printed with each (§24.5): --tz, else $TZ, else UTC.
    assert.match(cli.stdout, /\nopened \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?Z\n.*times in UTC\n/);
    const ny = await runSvc(['page', pageId, '--tz', 'America/New_York'], { env: a.env, cwd: a.dir });
    assert.match(ny.stdout, /\nopened \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?-0[45]:00\n.*times in America\/New_York\n/);
    assert.match(ny.stdout, /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?-0[45]:00 {2}acknowledged by bob via cli/m);

    // The story of the alert that opened the page (§20.3) tells the page too, verified.
    const [opener] = queryStore<{ id: string }>(home, "SELECT id FROM events WHERE fingerprint = 'walk-1'");
    const story = await runSvc(['explain', opener!.id, '--json'], { env: a.env, cwd: a.dir });
    assert.equal(story.code, 0, story.stderr);
    const told = JSON.parse(story.stdout) as { verified: boolean; rows: Array<{ kind: string }> };
    assert.equal(told.verified, true);
    assert.deepEqual(told.rows.map((r) => r.kind).filter((k) => k.startsWith('page.')), withRefusal);
    const human = await runSvc(['explain', opener!.id], { env: a.env, cwd: a.dir });
    assert.match(human.stdout, /acknowledged by bob via cli/);

    // A second page: svc pages lists both; cut by --limit, it says there are more (never a silent cut).
    const other = JSON.parse(a.fixture) as { groupKey: string };
    other.groupKey = '{}:{alertname="SecondIncident"}';
    assert.equal((await postAlert(a.url, a.secret, JSON.stringify(other), 'walk-2')).status, 202);
    await waitFor('a second page', () => queryStore<{ n: number }>(home, 'SELECT count(*) AS n FROM pages')[0]?.n === 2);
    const all = await runSvc(['pages'], { env: a.env, cwd: a.dir });
    assert.deepEqual([all.code, all.stdout.trimEnd().split('\n').length, all.stderr], [0, 3, '']);
    const kolkata = await runSvc(['pages'], { env: { ...a.env, TZ: 'Asia/Kolkata' }, cwd: a.dir });
    assert.equal(kolkata.code, 0, kolkata.stderr);
    assert.match(kolkata.stdout, /\d\d:\d\d(:\d\d)?\+05:30/);
    const cut = await runSvc(['pages', '--limit', '1'], { env: a.env, cwd: a.dir });
    assert.deepEqual([cut.code, cut.stdout.trimEnd().split('\n').length, cut.stderr],
      [0, 2, 'svc pages: the newest 1 shown; there are more (--state triggered for the open ones, or --limit up to 1000)\n']);
  });

  it('SIGKILL while a page waits for its next step: after the restart the step fires once', async () => {
    const a = await scaffoldAgent(t, 'kill', 'rules', 'killer');
    writeFileSync(join(a.dir, 'oncall.yaml'), oncallYaml('3s', '1h'));
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    stops.push(a.dir);
    const pid = Number((await import('node:fs')).readFileSync(join(t.home, 'up.pid'), 'utf8'));

    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'kill-1')).status, 202);
    const first = await waitFor('step 1 paged alice', () => lines(a).find((l) => l.to === 'alice'));
    const pageId = String(first.pageId);
    process.kill(pid, 'SIGKILL');
    await waitFor('the daemon is gone', () => !pidAlive(pid));
    const due = queryStore<{ due_ms: number; state: string }>(t.home, 'SELECT due_ms, state FROM pages WHERE id = ?', pageId)[0];
    assert.equal(due?.state, 'triggered');
    assert.ok(lines(a).every((l) => l.to !== 'bob'), 'killed before step 2 fell due');

    const restart = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(restart.code, 0, restart.stderr);
    await waitFor('step 2 paged bob after the restart', () => lines(a).find((l) => l.to === 'bob'));
    // Later evidence that the engine kept running: ack and resolve, whose notices come after any repeat.
    const resolved = await runSvc(['resolve', pageId, '--note', 'fixed'], { env: t.env, cwd: a.dir });
    assert.deepEqual([resolved.code, resolved.stdout], [0, `page ${pageId} resolved at step 2 of 2\n`]);
    await waitFor('both told of the resolution', () => lines(a).filter((l) => l.status === 'resolved').length === 2);
    const bobSteps = lines(a).filter((l) => l.to === 'bob' && l.status !== 'resolved');
    assert.deepEqual(bobSteps.map((l) => l.deliveryId), [`${pageId}.2.bob.oncall-dm`], 'step 2 fired exactly once');
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'page.escalated' && r.data.pageId === pageId).length, 1);
  });

  it('personal rules (§21.1): the first rule at once, the next as a round of its own 2 s later, an ack before the third cancels it and is told', async () => {
    const a = await startDaemon({ channelsYaml: fileChannels(['push', 'sms', 'phone']), files: { 'oncall.yaml': personalRulesYaml('2s') } });
    daemons.push(a);
    const out = (id: string): Line[] => readJsonLines(join(a.dir, 'out', `${id}.jsonl`));
    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'rules-1')).status, 202);
    const first = await waitFor('rule 0: push at once', () => out('push')[0]);
    const pageId = String(first.pageId);
    assert.equal(first.deliveryId, `${pageId}.1.alice.push`);
    const sms = await waitFor('rule 1: sms as round 2', () => out('sms')[0]);
    assert.deepEqual([sms.deliveryId, sms.pageId], [`${pageId}.2.alice.sms`, pageId]);
    const notified = auditRows(a.home).filter((r) => r.kind === 'page.notified' && r.data.pageId === pageId).map((r) => [r.data.deliveryId, r.data.rule]);
    assert.deepEqual(notified, [[`${pageId}.1.alice.push`, undefined], [`${pageId}.2.alice.sms`, 1]]);
    type Steps = { personalSteps: Array<{ person: string; rule: number; channels: string[]; state: string }> };
    const before = await (await fetch(`${a.cp}/pages/${pageId}`)).json() as Steps;
    assert.deepEqual(before.personalSteps.map((st) => [st.person, st.rule, st.channels, st.state]),
      [['alice', 1, ['sms'], 'sent'], ['alice', 2, ['phone'], 'pending']]);
    const shown = await runSvc(['page', pageId], { env: a.env, cwd: a.dir });
    assert.match(shown.stdout, /\npersonal steps:\n {2}sent .*alice, rule 1: sms\n {2}due {2}.*alice, rule 2: phone\n/);

    const ack = await runSvc(['ack', pageId, '--as', 'alice'], { env: a.env, cwd: a.dir });
    assert.equal(ack.code, 0, ack.stderr);
    const after = await (await fetch(`${a.cp}/pages/${pageId}`)).json() as Steps & { nextEscalationAt: string | null };
    assert.deepEqual(after.personalSteps.map((st) => [st.rule, st.state]), [[1, 'sent']], 'the call to come went with the ack');
    // The ack is told on the contacts the page used (file channels ring nobody): positive evidence the engine ran after it.
    const told = await waitFor('the ack told on push and sms', () => {
      const lines = [...out('push'), ...out('sms')].filter((l) => l.pageKind === 'acknowledged');
      return lines.length === 2 ? lines : false;
    });
    assert.deepEqual(told.map((l) => l.deliveryId).sort(), [`${pageId}.3.alice.push`, `${pageId}.3.alice.sms`]);
    assert.deepEqual(out('phone'), [], 'the third rule never went out');
    const due = queryStore<{ due_ms: number | null }>(a.home, 'SELECT due_ms FROM pages WHERE id = ?', pageId);
    assert.deepEqual(due, [{ due_ms: null }], 'no timer left on the page');
  });
});
