/**
 * A Slack room that carried a page hears of the joins after the ack (contract §24.2: "joins and status
 * as thread replies"; §21.7: nothing rings after the ack), against a real SQLite store, the page
 * engine, the notifier and the real Slack channel speaking to the shared fake Slack, on fake time.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { slackChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import { createAgentLog } from '../../logs/agent-log.js';
import { loadOncall } from '../../oncall/load-oncall.js';
import { createSlackChannel } from '../channels/slack-channel.js';
import { aliceOnlyYaml } from '../../../test/support/oncall-yaml.js';
import { startFakeSlack } from '../../../test/support/fake-slack.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { waitFor } from '../../../test/support/wait.js';
import { createPageEngine } from './page-engine.js';
import { createPageNotifier } from './page-notifier.js';

const T0 = Date.UTC(2026, 10, 21, 3, 12);
const TOKEN = 'xoxb-test-0000000000-roomjoin';
const ROOM = 'C0ROOM12345';
const root = mkdtempSync(join(tmpdir(), 'svc-room-join-'));
after(() => rmSync(root, { recursive: true, force: true }));
const shared = sharedSqliteStore('svc-room-join-store-');
after(() => shared.close());
const dispatch = { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 };

describe('a Slack room that carried the page hears a join after the ack in its thread (§24.2)', () => {
  it('the room and the holder each get a thread reply; nothing is edited, no DM is opened again, and the round is a status update', async () => {
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    const slack = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE', memberOf: [ROOM] });
    const channel = createSlackChannel(slackChannelSchema.parse({ id: 'slack', type: 'slack', direction: 'outbound', token: TOKEN,
      conversation: ROOM, apiUrl: slack.apiUrl }), { clock });
    mkdirSync(join(root, 'a'), { recursive: true });
    writeFileSync(join(root, 'a', 'oncall.yaml'), aliceOnlyYaml('slack: U0ALICE', ['channel:slack']));
    const config = loadOncall({ dir: join(root, 'a'), channels: [{ id: 'slack' }], sources: [] }, { env: {}, home: root, nowMs: T0 });
    assert.ok(config !== null);
    const log = createAgentLog({ path: join(root, 'a.log'), agentId: 'agent-a', clock });
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
