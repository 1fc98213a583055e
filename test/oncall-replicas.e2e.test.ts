/**
 * Pages on two PostgreSQL replicas (contract §17.4, §16): every due timer fires on exactly one
 * replica, and a replica SIGKILLed while pages wait for their next step loses no step — the other
 * fires each one, once. Acknowledgements on one replica racing escalations on the other: no
 * escalation line is written after its page's ack returned (issue 33: the last look is held until
 * the line is written, and an ack waits for it). A person's later rule (§21.1) is a timer of the page
 * too: the replica that sent its round dies, the other sends the step, once.
 */
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { adminRequest } from '../src/cli/admin-client.js';
import { homePaths } from '../src/config/paths.js';
import { systemClock } from '../src/core/clock.js';
import { postAlert } from './support/http.js';
import { alertInGroup, fileChannels, oncallYaml, personalRulesYaml } from './support/oncall-yaml.js';
import type { PgCluster } from './support/postgres.js';
import { startPgCluster } from './support/postgres.js';
import type { Replica } from './support/replicas.js';
import { startReplicas } from './support/replicas.js';
import { readJsonLines } from './support/store.js';
import { pidAlive } from './support/svc.js';
import { waitFor } from './support/wait.js';

const cluster: PgCluster = await startPgCluster();
const running: Replica[] = [];
after(async () => {
  for (const r of running) await r.stop().catch(() => undefined);
  cluster.close();
});

const PAGES = 12;
const linesOf = (replicas: Replica[]): Array<Record<string, unknown>> => replicas.flatMap((r) => readJsonLines(r.outFile));

describe('pages on replicas', () => {
  it('each due timer fires on exactly one replica; a SIGKILLed replica loses no step', async () => {
    const replicas = await startReplicas(2, { dbUrl: await cluster.createDatabase('pages'), files: { 'oncall.yaml': oncallYaml('4s', '1h') } });
    running.push(...replicas);
    const [a, b] = replicas as [Replica, Replica];
    for (let i = 0; i < PAGES; i++) {
      const r = i % 2 === 0 ? a : b;
      assert.equal((await postAlert(r.url, r.secret, alertInGroup(r.fixture, `g${i}`), `fp-${i}`)).status, 202);
    }
    const opened = await waitFor('every page notified its first step', () => {
      const first = linesOf(replicas).filter((l) => l.to === 'alice');
      return new Set(first.map((l) => l.pageId)).size === PAGES ? first : false;
    }, 60_000);
    // Kill one replica while every page waits for step 2 (4 s after it opened).
    const pid = a.pid();
    process.kill(pid, 'SIGKILL');
    await waitFor('replica a is gone', () => !pidAlive(pid));

    const pageIds = [...new Set(opened.map((l) => String(l.pageId)))];
    const second = await waitFor('every page climbed to step 2', () => {
      const found = linesOf(replicas).filter((l) => l.to === 'bob');
      return new Set(found.map((l) => l.pageId)).size === PAGES ? found : false;
    }, 90_000);
    assert.deepEqual(second.map((l) => l.deliveryId).sort(), pageIds.map((id) => `${id}.2.bob.oncall-dm`).sort(), 'each step-2 notice once, in round 2');
    const res = await fetch(`${b.cp}/audit?kind=page.escalated&limit=1000`);
    const escalated = (await res.json() as { items: Array<{ data: { pageId: string } }> }).items;
    assert.deepEqual(escalated.map((r) => r.data.pageId).sort(), [...pageIds].sort(), 'one page.escalated row per page: each timer fired once');
  });

  it('a personal step fires once when the replica that sent its round is SIGKILLed before it is due', async () => {
    const replicas = await startReplicas(2, { dbUrl: await cluster.createDatabase('steps'), channelsYaml: fileChannels(['push', 'sms', 'phone']),
      files: { 'oncall.yaml': personalRulesYaml('6s') } });
    running.push(...replicas);
    const [a] = replicas as [Replica, Replica];
    const out = (r: Replica, id: string): Array<Record<string, unknown>> => readJsonLines(join(dirname(r.outFile), `${id}.jsonl`));
    const all = (id: string): Array<Record<string, unknown>> => replicas.flatMap((r) => out(r, id));
    assert.equal((await postAlert(a.url, a.secret, alertInGroup(a.fixture, 'steps'), 'steps-1')).status, 202);
    const push = await waitFor('rule 0: push at once', () => all('push')[0], 60_000);
    const pageId = String(push.pageId);
    // Its row is marked sent before the kill: a replica killed between the line and the mark would have
    // the survivor send the push again once its claim lapses (at least once, §17.4) — not this test's case.
    await waitFor('the push marked sent', async () => (await cluster.query<{ status: string }>('steps',
      'SELECT status FROM page_notifications WHERE delivery_id = $1', [`${pageId}.1.alice.push`]))[0]?.status === 'sent', 30_000);
    // The replica that wrote the round dies while alice's sms (rule 1, 6 s after the round) waits.
    const sender = replicas.find((r) => out(r, 'push').length > 0) as Replica;
    const survivor = replicas.find((r) => r !== sender) as Replica;
    const pid = sender.pid();
    process.kill(pid, 'SIGKILL');
    await waitFor('the sender is gone', () => !pidAlive(pid));
    const sms = await waitFor('rule 1 from the survivor', () => (out(survivor, 'sms').length > 0 ? out(survivor, 'sms') : false), 90_000);
    await waitFor('the outbox drained', async () => Number((await cluster.query<{ n: string }>('steps',
      `SELECT count(*) AS n FROM page_notifications WHERE status = 'pending'`))[0]?.n) === 0, 30_000);
    assert.deepEqual(all('sms').map((l) => l.deliveryId), [`${pageId}.2.alice.sms`], 'one sms line, in round 2, from the survivor');
    assert.equal(sms.length, 1);
    const rows = ((await (await fetch(`${survivor.cp}/audit?kind=page.notified&limit=1000`)).json()) as { items: Array<{ data: Record<string, unknown> }> })
      .items.filter((r) => r.data.pageId === pageId).map((r): [string, unknown] => [String(r.data.deliveryId), r.data.rule])
      .sort((x, y) => x[0].localeCompare(y[0]));
    assert.deepEqual(rows, [[`${pageId}.1.alice.push`, undefined], [`${pageId}.2.alice.sms`, 1]], 'the step planned once, by one replica');
  });

  it('acknowledgements on one replica racing escalations on the other: no escalation line after its ack returned', async () => {
    const replicas = await startReplicas(2, { dbUrl: await cluster.createDatabase('ack_race'), files: { 'oncall.yaml': oncallYaml('3s', '1h') } });
    running.push(...replicas);
    const [a, b] = replicas as [Replica, Replica];
    const RACED = 16;
    for (let i = 0; i < RACED; i++) {
      assert.equal((await postAlert(a.url, a.secret, alertInGroup(a.fixture, `race${i}`), `race-${i}`)).status, 202);
    }
    const firsts = await waitFor('every page notified its first step', () => {
      const first = linesOf(replicas).filter((l) => l.to === 'alice' && String(l.title).length > 0);
      return new Set(first.map((l) => l.pageId)).size === RACED ? first : false;
    }, 60_000);
    const pageIds = [...new Set(firsts.map((l) => String(l.pageId)))];
    // Each page's step 2 falls due 3 s after it opened, on whichever replica claims it; replica b acks
    // each page around that moment, from 60 ms before to 90 ms after, so some acks land before the
    // timer, some while its escalation is on its way to the file, some after.
    const openedAt = new Map(firsts.map((l) => [String(l.pageId), Date.parse(String(l.ts))]));
    // bob's escalation lines; the ack's own notice to everyone notified (a status update, §24.1) is not one.
    const escalationsOf = (pageId: string): string[] => linesOf(replicas).filter((l) => l.pageId === pageId && l.to === 'bob'
      && l.pageKind === 'escalation')
      .map((l) => String(l.deliveryId));
    const seenAtAck = new Map<string, string[]>();
    await Promise.all(pageIds.map(async (pageId, i) => {
      const at = (openedAt.get(pageId) ?? 0) + 3_000 + ((i % 6) - 2) * 30;
      await new Promise((r) => { setTimeout(r, Math.max(0, at - Date.now())); });
      const answer = await adminRequest(homePaths(b.home).adminSocket, { op: 'page.act', page: pageId, action: 'ack', user: 'test', as: 'alice' },
        { clock: systemClock, timeoutMs: 30_000 });
      assert.ok(answer?.ok === true, JSON.stringify(answer));
      // The ack has committed: what the wire carries of the page's escalation is all it ever will.
      seenAtAck.set(pageId, escalationsOf(pageId));
    }));
    // Until the outbox has nothing left: every notice sent, or cancelled (at its claim, or at its last look).
    await waitFor('the outbox drained', async () => Number((await cluster.query<{ n: string }>('ack_race',
      `SELECT count(*) AS n FROM page_notifications WHERE status = 'pending'`))[0]?.n) === 0, 30_000);
    const stopped = ((await (await fetch(`${b.cp}/audit?kind=page.notice-cancelled&limit=1000`)).json()) as { items: unknown[] }).items.length;
    const sent = pageIds.filter((id) => seenAtAck.get(id)?.length).length;
    process.stderr.write(`ack race: ${sent} escalation(s) written before their ack, ${stopped} stopped at the last look\n`);
    for (const pageId of pageIds) assert.deepEqual(escalationsOf(pageId), seenAtAck.get(pageId), `no escalation line of ${pageId} after its ack returned`);
  });
});
