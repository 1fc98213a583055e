/**
 * Telegram button presses (§21.5) on a real SQLite store and page engine, on fake time, the Bot API
 * played by test/support/fake-telegram.ts (a real long poll over loopback): only the leader polls; a
 * press by alice acknowledges (`via: telegram`) and is answered; a stranger's press is refused and
 * audited on the page's timeline; the offset is kept in the store and the next poll confirms the batch;
 * a failing API backs off and says when it works again; an empty answer that comes at once is not
 * asked again for a second.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FakeTelegram } from '../../test/support/fake-telegram.js';
import { failure, startFakeTelegram } from '../../test/support/fake-telegram.js';
import { dailyShifts, testPerson } from '../../test/support/oncall-config.js';
import { advanceUntil } from '../../test/support/wait.js';
import { fakeClock } from '../core/clock.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { PageRecord } from '../oncall/page.js';
import { createPageEngine } from '../runtime/oncall/page-engine.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { TelegramActions } from './telegram-actions.js';
import { readUpdates, startTelegramActions } from './telegram-actions.js';

const TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const ALICE = 123456789;
const MIN = 60_000;
const root = mkdtempSync(join(tmpdir(), 'svc-telegram-actions-'));
const config: OncallConfig = {
  ...dailyShifts({ alice: {}, bob: {} }),
  people: [testPerson('alice', { tg: String(ALICE) }), testPerson('bob', { mail: 'bob@example.com' })],
  policies: [{ id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [], steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: 5 * MIN }] }],
};

describe('telegram button presses (§21.5)', () => {
  const clock = fakeClock(Date.parse('2026-11-21T03:00:00Z'));
  const reports: string[] = [];
  const logged: Array<Record<string, unknown>> = [];
  let leader = false;
  let tg: FakeTelegram;
  let store: Store;
  let actions: TelegramActions;
  let keys = 0;
  const engine = () => createPageEngine({ store, clock, configs: new Map([['ops', config]]) });
  const open = async (): Promise<PageRecord> => {
    keys += 1;
    const page = await engine().openFor('ops', `disk/${keys}`, 'default', { id: `e${keys}`, title: 'Disk full', severity: 'P1' });
    assert.ok(page !== null);
    return page;
  };
  const polls = (): number => tg.arrived.filter((c) => c.method === 'getUpdates').length;
  const answers = () => tg.calls.filter((c) => c.method === 'answerCallbackQuery').map((c) => c.body);

  before(async () => {
    tg = await startFakeTelegram(TOKEN);
    store = await openSqliteStore({ path: join(root, 'svc.db') });
    actions = startTelegramActions({ bots: () => [{ feed: 'telegram:110201543', token: TOKEN, apiUrl: tg.apiUrl, channels: [{ agentId: 'ops', channelId: 'tg' }] }],
      leader: () => leader, people: () => config.people, engine: engine(), store, clock, report: (line) => reports.push(line),
      log: (agentId, level, event, fields) => logged.push({ agentId, level, event, ...fields }) });
  });
  after(async () => {
    await actions.close();
    await tg.close();
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('a replica that does not lead does not poll; the leader does, long polling callback queries only', async () => {
    await clock.advanceAsync(20_000);
    assert.equal(polls(), 0, 'four idle looks, no poll');
    leader = true;
    await advanceUntil(clock, 'the first poll', () => polls() > 0);
    assert.deepEqual(tg.arrived.find((c) => c.method === 'getUpdates')?.body, { limit: 100, timeout: 50, allowed_updates: ['callback_query'] });
  });

  it('alice\'s press acknowledges her page via telegram and is answered; the offset is stored and confirmed by the next poll', async () => {
    const page = await open();
    const query = tg.press({ userId: ALICE, chatId: ALICE, messageId: 100, data: `svc:ack:${page.id}` });
    await advanceUntil(clock, 'the press answered', () => answers().some((a) => a.callback_query_id === query), 10);
    assert.deepEqual(answers().find((a) => a.callback_query_id === query), { callback_query_id: query, text: 'Acknowledged.' });
    const now = await store.oncall.getPage(page.id) as PageRecord | null;
    assert.deepEqual([now?.state, now?.acknowledgedBy], ['acknowledged', 'alice']);
    const rows = (await store.oncall.pageTimeline(page.id)).filter((r) => r.kind === 'page.acknowledged');
    assert.deepEqual(rows.map((r) => [r.actor, JSON.parse(r.dataText ?? '{}').via]), [[`telegram:${ALICE}`, 'telegram']]);
    const offset = await store.oncall.pollOffset('telegram:110201543');
    assert.ok(offset !== null && offset > 870_000_000, String(offset));
    await advanceUntil(clock, 'the batch confirmed', () => tg.confirmedBelow() === offset, 10);
  });

  it('a stranger\'s press is refused, audited on the page\'s timeline and told so; the page stays triggered', async () => {
    const page = await open();
    const query = tg.press({ userId: 555, chatId: ALICE, messageId: 100, data: `svc:resolve:${page.id}` });
    await advanceUntil(clock, 'the refusal answered', () => answers().some((a) => a.callback_query_id === query), 10);
    assert.deepEqual(answers().find((a) => a.callback_query_id === query),
      { callback_query_id: query, text: 'You are not on call for svc, so this button does nothing for you.' });
    const refused = (await store.oncall.pageTimeline(page.id)).filter((r) => r.kind === 'page.ack-refused');
    assert.deepEqual(refused.map((r) => [r.actor, JSON.parse(r.dataText ?? '{}')]), [['telegram:555',
      { pageId: page.id, via: 'telegram', user: '555', action: 'resolve', reason: 'unknown-user' }]]);
    assert.equal((await store.oncall.getPage(page.id))?.state, 'triggered');
    const other = tg.press({ userId: ALICE, chatId: ALICE, messageId: 100, data: 'another-bot:do-something' });
    await advanceUntil(clock, 'another app\'s button answered', () => answers().some((a) => a.callback_query_id === other), 10);
    assert.deepEqual(answers().find((a) => a.callback_query_id === other), { callback_query_id: other }, 'answered without a word');
  });

  it('a failing API backs off and says so once, then that it works again; an answer at once with nothing new waits a second', async () => {
    const from = reports.length;
    tg.script('getUpdates', failure(502, 'Bad Gateway'));
    tg.script('getUpdates', failure(502, 'Bad Gateway'));
    tg.script('getUpdates', { status: 200, body: { ok: true, result: [] } });
    await advanceUntil(clock, 'the failure reported', () => reports.slice(from).some((r) => r.includes('getUpdates failed')));
    assert.deepEqual(reports.slice(from, from + 1), [
      'telegram bot 110201543: getUpdates failed (telegram getUpdates: 502: Bad Gateway); trying again with back-off, up to every 60 s']);
    await advanceUntil(clock, 'recovery reported', () => reports.slice(from).includes('telegram bot 110201543: getUpdates works again'));
    assert.equal(reports.slice(from).length, 2, 'the second failure in a row is not reported again');
    for (let i = 0; i < 3; i += 1) tg.script('getUpdates', { status: 200, body: { ok: true, result: [] } });
    const before = tg.calls.filter((c) => c.method === 'getUpdates').length;
    await advanceUntil(clock, 'the empty answers', () => tg.calls.filter((c) => c.method === 'getUpdates').length >= before + 3, 10);
    const at = polls();
    await clock.advanceAsync(900);
    assert.equal(polls(), at, 'not asked again within the second');
    await advanceUntil(clock, 'asked again after it', () => polls() > at, 10);
  });
});

describe('readUpdates', () => {
  it('the callback queries and the offset after the batch; other updates move the offset too; junk is skipped', () => {
    assert.deepEqual(readUpdates([{ update_id: 5, message: {} }, { update_id: 6, callback_query: { id: 'q', from: { id: 42 }, data: 'svc:ack:p0a1b2c3d4e5f' } },
      { update_id: 'x' }, { update_id: 7, callback_query: { id: 7, from: { id: 42 } } }, null]),
    { queries: [{ id: 'q', userId: '42', data: 'svc:ack:p0a1b2c3d4e5f' }], next: 8 });
    assert.deepEqual(readUpdates([]), { queries: [], next: null });
    assert.equal(readUpdates({}), null);
  });
});
