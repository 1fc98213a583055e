import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutboundMessage } from './channel.js';
import { MAX_CALLBACK_DATA_BYTES, callbackData, pageKeyboard, parseCallbackData } from './telegram-keyboard.js';

const message = (over: Partial<OutboundMessage>): OutboundMessage => ({ eventId: 'e1', agentId: 'ops', severity: 'P1', status: 'firing', title: 't',
  text: 't', triagedBy: 'oncall', deliveryId: 'd', attempt: 1, pageId: 'p0a1b2c3d4e5f', pageKind: 'escalation', ...over });

describe('Telegram buttons (§21.5)', () => {
  it('callback_data is svc:<action>:<page>, within 64 bytes for the longest page id', () => {
    assert.equal(callbackData('ack', 'p0a1b2c3d4e5f'), 'svc:ack:p0a1b2c3d4e5f');
    assert.ok(Buffer.byteLength(callbackData('escalate', `p${'z'.repeat(31)}`)) <= MAX_CALLBACK_DATA_BYTES);
  });

  it('parses ours; refuses another app\'s, an unknown action, a page id out of pattern, more than 64 bytes, not a string', () => {
    assert.deepEqual(parseCallbackData('svc:resolve:p0a1b2c3d4e5f'), { action: 'resolve', pageId: 'p0a1b2c3d4e5f' });
    assert.deepEqual(parseCallbackData('svc:escalate:p0a1b2c3d4e5f'), { action: 'escalate', pageId: 'p0a1b2c3d4e5f' });
    for (const data of ['other:ack:p0a1b2c3d4e5f', 'svc:unack:p0a1b2c3d4e5f', 'svc:ack:P0A1', 'svc:ack:p0a1b2c3d4e5f:x', 'svc:ack:p1234567',
      `svc:ack:p${'a'.repeat(60)}`, 42, undefined, null]) {
      assert.equal(parseCallbackData(data), null, String(data));
    }
  });

  it('the keyboard follows the page: three buttons while triggered, only Resolve once acknowledged (§24.1), none once resolved', () => {
    const labels = (m: OutboundMessage): string[] | undefined => pageKeyboard(m)?.inline_keyboard.flat().map((b) => b.text);
    assert.deepEqual(pageKeyboard(message({})), { inline_keyboard: [[{ text: 'Acknowledge', callback_data: 'svc:ack:p0a1b2c3d4e5f' },
      { text: 'Resolve', callback_data: 'svc:resolve:p0a1b2c3d4e5f' }, { text: 'Escalate', callback_data: 'svc:escalate:p0a1b2c3d4e5f' }]] });
    assert.deepEqual(labels(message({ pageKind: 'acknowledged' })), ['Resolve']);
    assert.deepEqual(labels(message({ pageKind: 'resolved', status: 'resolved' })), []);
    assert.equal(pageKeyboard(message({ pageId: undefined, pageKind: 'notify' })), null);
  });
});
