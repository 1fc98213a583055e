/**
 * The `type: twilio` source on a real SQLite store and page engine, on fake time, with Twilio played by
 * test/support/fake-twilio.ts (signed exactly as Twilio signs): a forged signature is 403 and changes
 * nothing; an SMS `4<code>` from alice's number acknowledges her page (`via: sms`), a stranger's text
 * gets no answer, a wrong code is refused and audited; a call's key 6 resolves (`via: voice`); a call
 * nobody took is a failed try on the page's timeline, once, and the page's next step is still due.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FakeTwilio } from '../../test/support/fake-twilio.js';
import { signAsTwilio, startFakeTwilio } from '../../test/support/fake-twilio.js';
import { freePort } from '../../test/support/http.js';
import { dailyShifts, testPerson } from '../../test/support/oncall-config.js';
import type { TwilioChannelConfig } from '../config/schema.js';
import { twilioChannelSchema, twilioSourceSchema } from '../config/schema.js';
import { fakeClock } from '../core/clock.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { PageRecord } from '../oncall/page.js';
import { smsReplyCode } from '../oncall/sms-reply.js';
import { createTwilioChannel } from '../runtime/channels/twilio-channel.js';
import { createPageEngine } from '../runtime/oncall/page-engine.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { TwilioSourceServer } from './twilio-source-server.js';
import { createTwilioSourceServer } from './twilio-source-server.js';

const ALICE = '+4915112345678';
const BOB = '+4915187654321';
const TWILIO_NUMBER = '+15005550006';
const MIN = 60_000;
const root = mkdtempSync(join(tmpdir(), 'svc-twilio-source-'));

const config: OncallConfig = {
  ...dailyShifts({ alice: {}, bob: {} }),
  people: [testPerson('alice', { sms: ALICE, phone: ALICE }), testPerson('bob', { sms: BOB })],
  policies: [{ id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [],
    steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: 5 * MIN }, { notify: [{ kind: 'person', id: 'bob' }], afterMs: 5 * MIN }] }],
};

describe('twilio source (§21.4)', () => {
  const clock = fakeClock(Date.parse('2026-11-21T03:00:00Z'));
  const logged: Array<Record<string, unknown>> = [];
  const log: AgentLog = { write: (level, event, fields = {}) => { logged.push({ level, event, ...fields }); }, close: () => undefined };
  let twilio: FakeTwilio;
  let store: Store;
  let server: TwilioSourceServer;
  let base: string;
  let channel: TwilioChannelConfig;
  let keys = 0;
  const engine = () => createPageEngine({ store, clock, configs: new Map([['ops', config]]) });
  const open = async (): Promise<PageRecord> => {
    keys += 1;
    const page = await engine().openFor('ops', `disk/${keys}`, 'default', { id: `e${keys}`, title: 'Disk full on db-1', severity: 'P1' });
    assert.ok(page !== null);
    return page;
  };
  const pageNow = async (id: string): Promise<PageRecord> => (await store.oncall.getPage(id)) as PageRecord;
  const audit = async (kind: string) => (await store.listAudit({ limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind })).items
    .map((r) => ({ actor: r.actor, data: JSON.parse(r.dataText ?? '{}') as Record<string, unknown> }));
  const auditCount = async (): Promise<number> => (await store.listAudit({ limit: 1000, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {})).items.length;
  const smsText = (xml: string): string | undefined => /<Message>([^<]*)<\/Message>/.exec(xml)?.[1];

  before(async () => {
    twilio = await startFakeTwilio();
    store = await openSqliteStore({ path: join(root, 'svc.db') });
    const port = await freePort();
    base = `http://127.0.0.1:${port}/twilio`;
    channel = twilioChannelSchema.parse({ id: 'sms', type: 'twilio', direction: 'outbound', accountSid: twilio.accountSid,
      authToken: twilio.authToken, from: TWILIO_NUMBER, mode: 'sms', apiUrl: twilio.apiUrl });
    const source = twilioSourceSchema.parse({ id: 'twilio', type: 'twilio', port, publicUrl: base, channel: 'sms' });
    server = createTwilioSourceServer({ agentId: 'ops', source, channel: () => channel, people: () => config.people, engine: engine(), store, clock, log,
      report: (line) => { throw new Error(line); } });
    await server.start();
  });
  after(async () => {
    await server.close();
    await store.close();
    await twilio.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('a forged or missing signature is 403 and nothing is done; GET is 405', async () => {
    const page = await open();
    const code = smsReplyCode(twilio.authToken, 'ops', page.id, ALICE);
    const before = await auditCount();
    const params = { From: ALICE, To: TWILIO_NUMBER, Body: `4${code}`, MessageSid: 'SM1' };
    const forged = await twilio.post(`${base}/sms`, params, 'RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    assert.deepEqual([forged.status, forged.body], [403, 'invalid signature\n']);
    // Signed for another URL (another source's), and an unsigned request.
    const elsewhere = await twilio.post(`${base}/sms`, params, signAsTwilio(twilio.authToken,
      'https://other.example.com/sms', params));
    assert.equal(elsewhere.status, 403);
    const unsigned = await fetch(`${base}/sms`, { method: 'POST', body: new URLSearchParams(params).toString() });
    assert.equal(unsigned.status, 403);
    assert.equal((await pageNow(page.id)).state, 'triggered');
    assert.equal(await auditCount(), before, 'not a row written');
    assert.equal(logged.filter((l) => l.event === 'twilio.rejected').length, 3);
    assert.equal((await fetch(`${base}/sms`)).status, 405);
  });

  it('a rotated auth token (a config reload) keys the signatures from the next request on', async () => {
    const was = channel;
    channel = { ...was, authToken: '00112233445566778899aabbccddeeff' };
    try {
      const params = { From: ALICE, To: TWILIO_NUMBER, Body: 'hello', MessageSid: 'SM2' };
      assert.equal((await twilio.post(`${base}/sms`, params)).status, 403, 'signed with the old token');
      assert.equal((await twilio.post(`${base}/sms`, params, signAsTwilio(channel.authToken, `${base}/sms`, params))).status, 200);
    } finally {
      channel = was;
    }
  });

  it('an SMS 4<code> from alice acknowledges her page, via sms, and is answered with TwiML', async () => {
    const page = await open();
    const code = smsReplyCode(twilio.authToken, 'ops', page.id, ALICE);
    const answer = await twilio.sms(`${base}/sms`, ALICE, TWILIO_NUMBER, ` 4${code} `);
    assert.equal(answer.status, 200);
    assert.equal(answer.contentType, 'text/xml; charset=utf-8');
    assert.equal(answer.body, `<?xml version="1.0" encoding="UTF-8"?><Response><Message>svc: page ${page.id} acknowledged by alice: Disk full on db-1</Message></Response>`);
    const now = await pageNow(page.id);
    assert.deepEqual([now.state, now.acknowledgedBy], ['acknowledged', 'alice']);
    const acked = (await audit('page.acknowledged')).filter((r) => r.data.pageId === page.id);
    assert.deepEqual(acked, [{ actor: `sms:${ALICE}`, data: { pageId: page.id, by: 'alice', via: 'sms', step: 1, loop: 0 } }]);
    const again = await twilio.sms(`${base}/sms`, ALICE, TWILIO_NUMBER, `4${code}`);
    assert.equal(smsText(again.body), `svc: page ${page.id} was already acknowledged by alice.`);
  });

  it('a stranger\'s text gets no answer and is audited; alice\'s wrong code and plain text are told; the page stays', async () => {
    const page = await open();
    const code = smsReplyCode(twilio.authToken, 'ops', page.id, ALICE);
    const stranger = await twilio.sms(`${base}/sms`, '+4930999999', TWILIO_NUMBER, `4${code}`);
    assert.equal(stranger.body, '<?xml version="1.0" encoding="UTF-8"?><Response></Response>', 'no SMS back to a stranger');
    const wrong = code === '000000' ? '000001' : '000000';
    assert.equal(smsText((await twilio.sms(`${base}/sms`, ALICE, TWILIO_NUMBER, `6${wrong}`)).body), `svc: no open page of yours has code ${wrong}.`);
    // bob's number and alice's code: bob was not notified of this page on this number, so no page of his has it.
    assert.equal(smsText((await twilio.sms(`${base}/sms`, BOB, TWILIO_NUMBER, `4${code}`)).body), `svc: no open page of yours has code ${code}.`);
    assert.match(smsText((await twilio.sms(`${base}/sms`, ALICE, TWILIO_NUMBER, 'on my way')).body) ?? '', /^svc: to answer a page, reply 4/);
    assert.equal((await pageNow(page.id)).state, 'triggered');
    const refused = (await audit('page.ack-refused')).map((r) => [r.actor, r.data.reason, r.data.via, r.data.action]);
    assert.deepEqual(refused.slice(-3), [['sms:+4930999999', 'unknown-number', 'sms', 'ack'], [`sms:${ALICE}`, 'unknown-code', 'sms', 'resolve'],
      [`sms:${BOB}`, 'unknown-code', 'sms', 'ack']]);
  });

  it('a call: answered, it asks; a wrong key asks again; 6 resolves, via voice', async () => {
    const page = await open();
    const phone = createTwilioChannel(twilioChannelSchema.parse({ id: 'sms', type: 'twilio', direction: 'outbound', accountSid: twilio.accountSid,
      authToken: twilio.authToken, from: TWILIO_NUMBER, mode: 'voice', apiUrl: twilio.apiUrl }), { clock, source: { publicUrl: base } });
    const placed = await phone.send({ eventId: 'e', agentId: 'ops', severity: 'P1', status: 'firing', title: page.title, text: page.title,
      triagedBy: 'oncall', deliveryId: `${page.id}.1.alice.sms`, attempt: 1, to: ALICE, pageId: page.id, pageKind: 'escalation' }, new AbortController().signal);
    assert.ok(placed.ok);
    const call = twilio.calls().at(-1);
    assert.ok(call !== undefined);
    const asked = await twilio.answer(call);
    assert.equal(asked.status, 200);
    assert.match(asked.body, /<Gather input="dtmf" numDigits="1" timeout="8" action="[^"]+\?n=1" method="POST"><Say>This is svc, priority 1: Disk full on db-1\. Press 4 to acknowledge, 6 to resolve\.<\/Say><\/Gather>/);
    const wrongKey = await twilio.press(call, asked.body, '9');
    assert.match(wrongKey.body, /<Say>That key does nothing\. This is svc/);
    assert.match(wrongKey.body, /action="[^"]+\?n=2"/);
    const resolved = await twilio.press(call, wrongKey.body, '6');
    assert.match(resolved.body, /<Say>Resolved\. Goodbye\.<\/Say><Hangup\/>/);
    const now = await pageNow(page.id);
    assert.deepEqual([now.state, now.resolvedBy], ['resolved', 'alice']);
    assert.deepEqual((await audit('page.resolved')).filter((r) => r.data.pageId === page.id).map((r) => [r.actor, r.data.via]), [[`voice:${ALICE}`, 'voice']]);
  });

  it('a call nobody took: page.call-failed with Twilio\'s status on the page\'s timeline, once; the page\'s next step still comes', async () => {
    const page = await open();
    const phone = createTwilioChannel(twilioChannelSchema.parse({ id: 'sms', type: 'twilio', direction: 'outbound', accountSid: twilio.accountSid,
      authToken: twilio.authToken, from: TWILIO_NUMBER, mode: 'voice', apiUrl: twilio.apiUrl }), { clock, source: { publicUrl: base } });
    assert.ok((await phone.send({ eventId: 'e', agentId: 'ops', severity: 'P1', status: 'firing', title: page.title, text: page.title, triagedBy: 'oncall',
      deliveryId: `${page.id}.1.alice.sms`, attempt: 1, to: ALICE, pageId: page.id, pageKind: 'escalation' }, new AbortController().signal)).ok);
    const call = twilio.calls().at(-1);
    assert.ok(call !== undefined);
    assert.equal((await twilio.end(call, 'no-answer')).status, 200);
    assert.equal((await twilio.end(call, 'no-answer')).status, 200, 'Twilio posting the same status again');
    const failed = (await store.oncall.pageTimeline(page.id)).filter((r) => r.kind === 'page.call-failed');
    assert.equal(failed.length, 1);
    assert.deepEqual(JSON.parse(failed[0]?.dataText ?? '{}'), { pageId: page.id, deliveryId: `${page.id}.1.alice.sms`, person: 'alice', channel: 'sms',
      status: 'no-answer', callSid: call.reply.body.sid });
    const now = await pageNow(page.id);
    assert.deepEqual([now.state, now.step, now.nextEscalationAtMs], ['triggered', 1, page.nextEscalationAtMs], 'the escalation timer untouched');
    const before = (await store.oncall.pageTimeline(page.id)).length;
    await twilio.end(call, 'completed');
    assert.equal((await store.oncall.pageTimeline(page.id)).length, before, 'an answered call is no failed try');
  });
});
