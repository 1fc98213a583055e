import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { pagingConfig } from '../../test/support/oncall-config.js';
import { sharedSqliteStore } from '../../test/support/shared-store.js';
import { fakeClock } from '../core/clock.js';
import type { LogFields } from '../core/log.js';
import { createPageEngine } from '../runtime/oncall/page-engine.js';
import type { PageQuery } from '../store/store.js';
import { createSlackActionsServer, parseClick, SLACK_TIMESTAMP_WINDOW_S, verifySlackSignature } from './slack-actions-server.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const sign = (ts: string, body: string): string => `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;

describe('verifySlackSignature', () => {
  const clock = fakeClock(1_700_000_000_000);
  const body = 'payload=%7B%7D';
  const ts = String(clock.now() / 1000);

  it('accepts Slack v0 signatures within 300 s either way, not a second beyond (fake clock)', () => {
    assert.equal(verifySlackSignature(SECRET, ts, sign(ts, body), body, clock.now()), true);
    clock.advance(SLACK_TIMESTAMP_WINDOW_S * 1000);
    assert.equal(verifySlackSignature(SECRET, ts, sign(ts, body), body, clock.now()), true);
    clock.advance(1000);
    assert.equal(verifySlackSignature(SECRET, ts, sign(ts, body), body, clock.now()), false);
    const future = String(clock.now() / 1000 + SLACK_TIMESTAMP_WINDOW_S + 1);
    assert.equal(verifySlackSignature(SECRET, future, sign(future, body), body, clock.now()), false);
  });

  it('refuses another body, another secret, a missing header and a timestamp that is not seconds', () => {
    const now = Number(ts) * 1000;
    assert.equal(verifySlackSignature(SECRET, ts, sign(ts, body), `${body}x`, now), false);
    assert.equal(verifySlackSignature('another-secret-0123456789', ts, sign(ts, body), body, now), false);
    assert.equal(verifySlackSignature(SECRET, undefined, sign(ts, body), body, now), false);
    assert.equal(verifySlackSignature(SECRET, ts, undefined, body, now), false);
    assert.equal(verifySlackSignature(SECRET, `${ts}.5`, sign(`${ts}.5`, body), body, now), false);
  });
});

describe('parseClick', () => {
  const payload = (p: unknown): string => `payload=${encodeURIComponent(JSON.stringify(p))}`;
  it('reads the user, the first action and response_url of a block_actions payload', () => {
    assert.deepEqual(parseClick(payload({ type: 'block_actions', user: { id: 'U1' }, response_url: 'https://hooks.slack.com/actions/T/1/x',
      actions: [{ action_id: 'svc_ack', value: 'p0123456789ab' }] })),
    { userId: 'U1', actionId: 'svc_ack', pageId: 'p0123456789ab', responseUrl: 'https://hooks.slack.com/actions/T/1/x' });
  });
  it('anything else is null: no payload, not JSON, another type, no actions', () => {
    assert.equal(parseClick('x=1'), null);
    assert.equal(parseClick('payload=%7B'), null);
    assert.equal(parseClick(payload({ type: 'view_submission', user: { id: 'U1' }, actions: [{ action_id: 'svc_ack', value: 'p' }] })), null);
    assert.equal(parseClick(payload({ type: 'block_actions', user: { id: 'U1' }, actions: [] })), null);
  });
});

describe('slack actions over loopback: a signed click acts once (issue 33)', () => {
  const shared = sharedSqliteStore('svc-slack-actions-');
  after(() => shared.close());
  const all: PageQuery = { limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null };

  it('the same signed request sent again within its 300 s is answered 200 and does nothing; a new click acts', async () => {
    const store = await shared.fresh();
    const clock = fakeClock(1_700_000_000_000);
    const config = pagingConfig();
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]) });
    const logged: Array<{ event: string; fields: LogFields }> = [];
    const server = createSlackActionsServer({ agentId: 'agent-a', engine, store, clock, slackChannelIds: ['dm'], people: () => config.people,
      source: { id: 'slack-actions', type: 'slack', port: 0, bind: '127.0.0.1', signingSecret: SECRET, maxConnections: 16 },
      log: { write: (_level, event, fields = {}) => { logged.push({ event, fields }); }, close: () => undefined },
      report: (line) => assert.fail(line), postJson: () => Promise.resolve() });
    const page = await engine.openFor('agent-a', 'k', 'default', { id: 'e1', title: 'Disk full', severity: 'P1' });
    assert.ok(page !== null);
    await server.start();
    try {
      const click = (user: string, actionId: string): string => `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions',
        user: { id: user }, actions: [{ action_id: actionId, value: page.id }] }))}`;
      const send = (body: string, ts: string): Promise<Response> => fetch(`http://127.0.0.1:${server.port()}/webhooks/slack-actions`, {
        method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Slack-Request-Timestamp': ts,
          'X-Slack-Signature': sign(ts, body) } });
      const count = async (kind: string): Promise<number> => (await store.listAudit(all, { kind })).items.length;
      const ts = String(clock.now() / 1000);
      const escalate = click('alice', 'svc_escalate');
      assert.equal((await send(escalate, ts)).status, 200);
      assert.equal(await count('page.escalated'), 1);
      clock.advance(60_000);
      assert.equal((await send(escalate, ts)).status, 200, 'a replay is answered as Slack expects');
      assert.equal(await count('page.escalated'), 1, 'escalating is not idempotent: the replay did not escalate again');
      assert.deepEqual(logged.filter((l) => l.event === 'slack-action.replayed').map((l) => l.fields.action), ['svc_escalate']);
      // A refused click replayed is refused once, not audited twice.
      const stranger = click('U0STRANGER', 'svc_ack');
      await send(stranger, ts);
      await send(stranger, ts);
      assert.equal(await count('page.ack-refused'), 1);
      // Alice's second click is a new request (its own timestamp): it escalates.
      const later = String(clock.now() / 1000);
      assert.equal((await send(escalate, later)).status, 200);
      assert.equal(await count('page.escalated'), 2);
    } finally {
      await server.close();
    }
  });
});
