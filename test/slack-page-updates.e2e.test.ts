/**
 * A Slack page message kept in step with its page against the built daemon (contract §18.1): a local
 * server speaks Slack's Web API (JSON with charset, Bearer token, `ok` answers, 429 with Retry-After).
 * The page is posted with Acknowledge / Resolve / Escalate; the daemon restarts; `svc ack` then edits
 * that same message (same channel and ts, found in the store after the restart) without its
 * Acknowledge button, after waiting out a 429; a joining alert is a thread reply under it; resolving
 * edits it once more, without buttons. Then `svc report` (contract §23) counts that page: two rounds
 * woke alice on Slack, the ack's and the resolve's notices did not; the console shows the same.
 */
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { FakeSlack, SlackCall } from './support/fake-slack.js';
import { actionIds, startFakeSlack } from './support/fake-slack.js';
import { postAlert } from './support/http.js';
import type { Report } from '../src/report/report.js';
import { aliceOnlyYaml } from './support/oncall-yaml.js';
import { auditRows, queryStore } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'xoxb-test-0000000000-secret-token';
const ONCALL = aliceOnlyYaml('slack-dm: U0ALICE');

describe('slack page message updated in place e2e', () => {
  const t = tempEnv();
  let slack: FakeSlack | null = null;
  const stops: string[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    await slack?.close();
    t.cleanup();
  });

  it('posted with buttons, edited on ack after a restart (same ts, 429 waited out), join in its thread, edited on resolve', async () => {
    const fake = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE', rateLimitFirstUpdate: true });
    slack = fake;
    const { apiUrl } = fake;
    const a = await scaffoldAgent(t, 'slack-updates');
    writeFileSync(join(a.dir, 'oncall.yaml'), ONCALL);
    appendFileSync(join(a.dir, 'channels.yaml'), ['  - id: slack-dm', '    type: slack', '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}', '    user: U0ONCALL', `    apiUrl: ${apiUrl}`, ''].join('\n'));
    // The control plane on: `svc report` and the console read it at the end.
    const env = { ...t.env, SLACK_BOT_TOKEN: TOKEN, SVC_METRICS_PORT: String(a.cpPort) };
    const up = async (): Promise<void> => {
      const started = await runSvc(['up', '-d'], { env, cwd: a.dir });
      assert.equal(started.code, 0, started.stderr);
    };
    await up();
    stops.push(a.dir);
    const posts = (): SlackCall[] => fake.calls.filter((c) => c.method === 'chat.postMessage');
    const updates = (): SlackCall[] => fake.calls.filter((c) => c.method === 'chat.update');

    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'upd-1')).status, 202);
    const opening = await waitFor('the page message posted', () => posts()[0]);
    const pageId = String((opening.body.blocks as Array<{ elements?: Array<{ value: string }> }>)[1]?.elements?.[0]?.value);
    assert.match(pageId, /^p[a-z0-9]{12}$/);
    assert.equal(opening.auth, `Bearer ${TOKEN}`);
    assert.equal(opening.contentType, 'application/json; charset=utf-8');
    assert.equal(opening.body.channel, 'D0ALICE');
    assert.equal(opening.body.thread_ts, undefined);
    assert.deepEqual(actionIds(opening.body), ['svc_ack', 'svc_resolve', 'svc_escalate']);
    const postedTs = String(opening.reply.body.ts);
    await waitFor('the delivery recorded', () => auditRows(t.home).find((r) => r.kind === 'message.delivered' && r.data.pageId === pageId));

    // A restart between the post and the ack: the message reference comes from the store, not memory.
    assert.equal((await runSvc(['down'], { env, cwd: a.dir })).code, 0);
    await up();

    const ack = await runSvc(['ack', pageId, '--as', 'alice'], { env, cwd: a.dir });
    assert.equal(ack.code, 0, ack.stderr);
    const edited = await waitFor('the ack edited in after a 429', () => (updates().length >= 2 ? updates() : undefined));
    assert.deepEqual(edited.map((u) => u.reply.status), [429, 200], 'the rate-limited edit was tried again');
    for (const u of edited) {
      assert.equal(u.auth, `Bearer ${TOKEN}`);
      assert.equal(u.contentType, 'application/json; charset=utf-8');
      assert.equal(u.body.channel, 'D0ALICE');
      assert.equal(u.body.ts, postedTs, 'the message posted before the restart');
    }
    // The same alert, what happened now, nobody paged any more (§24.1): the opening's text up to what happened.
    const said = String(opening.body.text);
    assert.equal(edited[1]?.body.text, `${said.slice(0, said.indexOf(`Page ${pageId} opened.`))}Page ${pageId} acknowledged by alice.`);
    assert.deepEqual(actionIds(edited[1]?.body ?? {}), ['svc_resolve'], 'no Acknowledge (nor Escalate) on an acknowledged page');
    assert.equal(posts().length, 1, 'no second message for the ack');

    // A second alert of the same group joins the page: a reply in the message's thread.
    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'upd-2')).status, 202);
    const reply = await waitFor('the join as a thread reply', () => posts()[1]);
    assert.equal(reply.body.channel, 'D0ALICE');
    assert.equal(reply.body.thread_ts, postedTs);
    assert.match(String(reply.body.text), new RegExp(`^\\[P1\\] [\\s\\S]*\\n2 alerts now on page ${pageId}\\.$`), 'the join told; on an acknowledged page nobody is paged');
    // After the ack a join is a status update to the holder alone (§21.1, §21.7), not a round.
    assert.deepEqual(auditRows(t.home).filter((r) => r.kind === 'page.notified' && r.data.pageId === pageId).map((r) => [r.data.person, r.data.kind]).at(-1),
      ['alice', 'joined-acked']);

    assert.equal((await runSvc(['resolve', pageId], { env, cwd: a.dir })).code, 0);
    const resolved = await waitFor('the resolution edited in', () => updates()[2]);
    assert.equal(resolved.body.ts, postedTs, 'the top-level message, not the thread reply');
    assert.deepEqual(actionIds(resolved.body), [], 'no buttons on a resolved page');
    assert.match(String(resolved.body.text), /^RESOLVED \[P1\] /);
    assert.equal(posts().length, 2);
    assert.equal(queryStore<{ state: string }>(t.home, 'SELECT state FROM pages WHERE id = ?', pageId)[0]?.state, 'resolved');

    // What the pager cost (contract §23): the opening reached alice on Slack, a channel that wakes — one interruption; the
    // ack's, the join's after it (joined-acked) and the resolve's notices to her are status updates, not page rounds.
    const json = await runSvc(['report', '--json', '--by', 'person'], { env, cwd: a.dir });
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as Report;
    const { totals } = report;
    assert.deepEqual([totals.pages, totals.acknowledged, totals.resolved, totals.timeToAckSeconds.count, totals.interruptions.total], [1, 1, 1, 1, 1]);
    assert.equal(totals.interruptions.business + totals.interruptions.offHours + totals.interruptions.sleep, 1);
    assert.deepEqual(report.groups.map((g) => [g.key, g.pages, g.interruptions.total]), [['alice', 1, 1]]);
    const alertname = (JSON.parse(a.fixture) as { commonLabels: { alertname: string } }).commonLabels.alertname;
    assert.deepEqual(report.alerts, [{ alertname, pages: 1, flapping: 0 }], 'the page counted under its alert name');
    // The console draws the same numbers (the same read).
    const ui = await (await fetch(`${a.cp}/ui/reports?by=person`)).text();
    assert.ok(ui.includes(`<dt>Pages</dt><dd>1 (acknowledged 1, resolved 1)</dd>`));
    assert.ok(ui.includes(`<td class="num">1 (${totals.interruptions.business} business · ${totals.interruptions.offHours} off hours · ${totals.interruptions.sleep} sleep)</td>`));
    const csv = await runSvc(['report', '--csv', '--by', 'alert'], { env, cwd: a.dir });
    assert.equal(csv.code, 0, csv.stderr);
    assert.deepEqual(csv.stdout.split('\r\n').map((l) => l.split(',').slice(0, 4)).slice(1, 3), [['total', '', '', '1'], ['alert', alertname, '', '1']]);
    for (const [args, flag] of [[['--since', 'nonsense'], '--since'], [['--since', '2026-11-20T00:00:00Z', '--until', '2026-11-19T00:00:00Z'], '--until'],
      [['--by', 'color'], '--by']] as const) {
      const bad = await runSvc(['report', ...args], { env, cwd: a.dir });
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
      assert.ok(bad.stderr.includes(flag), `the error names ${flag}: ${bad.stderr}`);
    }
  });
});
