import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { parseClick, SLACK_TIMESTAMP_WINDOW_S, verifySlackSignature } from './slack-actions-server.js';

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
