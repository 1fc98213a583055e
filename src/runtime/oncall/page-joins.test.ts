/**
 * Join notices from the plan to the wire, against a real SQLite store, the page engine, the notifier
 * and real channels (the file channel; Slack's speaking to the shared fake Slack), on fake time:
 *
 * - a Slack room that carried a page hears of the joins after the ack (contract §24.2: "joins and
 *   status as thread replies"; §21.7: nothing rings after the ack);
 * - two join notices of a page are a minute apart on the wire (§21.7), even when the first one's
 *   send took long.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileChannelSchema, slackChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import { createAgentLog } from '../../logs/agent-log.js';
import { loadOncall } from '../../oncall/load-oncall.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import { JOIN_NOTICE_GAP_MS } from '../../oncall/join-spacing.js';
import type { Channel } from '../channels/channel.js';
import { createFileChannel } from '../channels/file-channel.js';
import { createSlackChannel } from '../channels/slack-channel.js';
import { oncallFiles } from '../../../test/support/oncall-files.js';
import { aliceOnlyYaml } from '../../../test/support/oncall-yaml.js';
import { startFakeSlack } from '../../../test/support/fake-slack.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { waitFor } from '../../../test/support/wait.js';
import { createPageEngine } from './page-engine.js';
import { createPageNotifier } from './page-notifier.js';

const T0 = Date.UTC(2026, 10, 21, 3, 12);
const TOKEN = 'xoxb-test-0000000000-roomjoin';
const ROOM = 'C0ROOM12345';
const files = oncallFiles('svc-page-joins-');
const root = files.root;
const shared = sharedSqliteStore('svc-page-joins-store-');
after(() => shared.close());
const dispatch = { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 };

let n = 0;
/** oncall.yaml in a folder of its own, loaded as the daemon would. */
function configOf(yaml: string, channels: string[]): OncallConfig {
  n += 1;
  const config = loadOncall({ dir: files.dirWith(yaml), channels: channels.map((id) => ({ id })), sources: [] }, { env: {}, home: root, nowMs: T0 });
  assert.ok(config !== null);
  return config;
}

describe('a Slack room that carried the page hears a join after the ack in its thread (§24.2)', () => {
  it('the room and the holder each get a thread reply; nothing is edited, no DM is opened again, and the round is a status update', async () => {
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    const slack = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE', memberOf: [ROOM] });
    const channel = createSlackChannel(slackChannelSchema.parse({ id: 'slack', type: 'slack', direction: 'outbound', token: TOKEN,
      conversation: ROOM, apiUrl: slack.apiUrl }), { clock });
    const config = configOf(aliceOnlyYaml('slack: U0ALICE', ['channel:slack']), ['slack']);
    const log = createAgentLog({ path: join(root, `${n}.log`), agentId: 'agent-a', clock });
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: 30 * 60_000,
      agents: new Map([['agent-a', { id: 'agent-a', channels: [channel], log, dispatch }]]) });
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]), followsPageState: () => true });
    /** Sends what is in the outbox until `count` Slack calls were made (a page's messages to one channel go one after another). */
    const drain = (count: number): Promise<unknown> => waitFor(`${count} Slack calls`, async () => {
      await notifier.pass();
      return slack.calls.length >= count;
    });

    const page = await engine.openFor('agent-a', 'disk/a', 'default', { id: 'event-a', title: 'Disk full on db-1', severity: 'P1' });
    assert.ok(page !== null);
    await drain(3);
    const posted = slack.calls.filter((c) => c.method === 'chat.postMessage');
    const roomTs = posted.find((c) => c.body.channel === ROOM)?.reply.body.ts;
    const dmTs = posted.find((c) => c.body.channel === 'D0ALICE')?.reply.body.ts;
    assert.ok(typeof roomTs === 'string' && typeof dmTs === 'string', 'the page posted in the room and in alice\'s DM');

    clock.set(T0 + 60_000);
    const acked = await engine.act(page.id, { kind: 'ack', note: null }, { actor: 'cli:alice', by: 'alice', via: 'cli' });
    assert.ok(acked.ok && acked.changed);
    await drain(6);
    slack.calls.length = 0;

    clock.set(T0 + 90_000);
    await engine.openFor('agent-a', 'disk/a', 'default', { id: 'event-b', title: 'Disk full on db-1', severity: 'P1' });
    await drain(2);
    const byChannel = new Map(slack.calls.map((c) => [c.body.channel, c]));
    assert.deepEqual(slack.calls.map((c) => c.method), ['chat.postMessage', 'chat.postMessage'], 'two thread replies, no edit, no DM opened');
    const text = `[P1] Disk full on db-1\n2 alerts now on page ${page.id}.`;
    assert.equal(byChannel.get(ROOM)?.raw, JSON.stringify({ channel: ROOM, thread_ts: roomTs, text, unfurl_links: false }),
      'the room\'s reply under the page\'s message: the join\'s words, no buttons');
    assert.equal(byChannel.get('D0ALICE')?.raw, JSON.stringify({ channel: 'D0ALICE', thread_ts: dmTs, text, unfurl_links: false }));

    const notified = (await store.listAudit({ limit: 50, cursor: null, order: 'asc', sinceMs: T0 + 90_000, untilMs: null }, { kind: 'page.notified' }))
      .items.map((r) => JSON.parse(r.dataText ?? '{}') as { person: string; kind: string; deliveryId: string });
    assert.deepEqual(notified.map((d) => [d.person, d.kind]), [['alice', 'joined-acked'], ['-', 'joined-acked']],
      'one status round: to the holder and to the room, none that pages');
    await notifier.close();
    await channel.close();
    log.close();
    await slack.close();
  });
});

describe('join notices a minute apart on the wire (§21.7)', () => {
  it('the first notice\'s send took 1.5 s: the next, counted meanwhile, waits a minute from when the first was out', async () => {
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    const out = join(root, `joins-${n}.jsonl`);
    const file = createFileChannel(fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path: out }), { clock });
    // The first join notice's send is slow (a busy channel, a backlog): 1.5 s of fake time before the line is written.
    let slowed = 0;
    const slow: Channel = { ...file, send: async (m, signal, gate) => {
      if (m.pageKind === 'join' && slowed === 0) {
        slowed += 1;
        await clock.sleep(1_500, signal);
      }
      return file.send(m, signal, gate);
    } };
    const config = configOf(aliceOnlyYaml('oncall-dm: alice'), ['oncall-dm']);
    const log = createAgentLog({ path: join(root, `${n}.log`), agentId: 'agent-a', clock });
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: 30 * 60_000,
      agents: new Map([['agent-a', { id: 'agent-a', channels: [slow], log, dispatch }]]) });
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]) });
    const lines = (): Array<{ ts: string; text: string }> => readFileSync(out, 'utf8').split('\n').filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { ts: string; text: string });
    const event = (id: string) => ({ id, title: 'Disk full on db-1', severity: 'P1' as const });
    const stored = async () => {
      const p = await store.oncall.getPage(pageId);
      assert.ok(p !== null && !('corrupt' in p));
      return p;
    };

    const page = await engine.openFor('agent-a', 'disk/a', 'default', event('e1'));
    assert.ok(page !== null);
    const pageId = page.id;
    await notifier.pass();
    clock.set(T0 + 5_000);
    await engine.openFor('agent-a', 'disk/a', 'default', event('e2'));
    const sending = notifier.pass();
    await waitFor('the first join notice\'s slow send under way', () => slowed === 1);
    await clock.advanceAsync(1_500);
    await sending;
    clock.set(T0 + 10_000);
    await engine.openFor('agent-a', 'disk/a', 'default', event('e3'));
    const counted = await stored();
    assert.deepEqual([counted.pendingJoins, counted.joinNoticeAtMs], [1, T0 + 5_000 + JOIN_NOTICE_GAP_MS], 'counted, due a minute after the first\'s plan');

    clock.set(T0 + 65_000);
    await engine.fire(counted);
    assert.equal((await notifier.pass()).claimed, 0, 'nothing to send at the minute from the plan');
    const waiting = await stored();
    assert.deepEqual([waiting.pendingJoins, waiting.joinNoticeAtMs], [1, T0 + 6_500 + JOIN_NOTICE_GAP_MS],
      'still counted, now due a minute after the first was out');
    clock.set(T0 + 66_500);
    await engine.fire(waiting);
    await notifier.pass();
    const joins = lines().filter((l) => / alerts? now on page /.test(l.text));
    assert.deepEqual(joins.map((l) => [Date.parse(l.ts) - T0, l.text.match(/(\d+) alerts now/)?.[1]]), [[6_500, '2'], [66_500, '3']]);
    assert.ok(Date.parse(joins[1]?.ts ?? '') - Date.parse(joins[0]?.ts ?? '') >= JOIN_NOTICE_GAP_MS, 'a minute apart where alice sees them');
    await notifier.close();
    await file.close();
    log.close();
  });
});
