import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListedAuditRow } from '../../store/store.js';
import { pageMessageOf } from './page-message.js';

let seq = 0;
const row = (kind: string, data: Record<string, unknown> | null): ListedAuditRow => ({ seq: ++seq, ts: '2026-11-25T03:00:00.000Z', kind,
  actor: 'agent:oncall', agentId: 'oncall', dataText: data === null ? null : JSON.stringify(data), prevHash: '', hash: '' });
const delivered = (channelId: string, person: string, detail: Record<string, string>): ListedAuditRow =>
  row('message.delivered', { pageId: 'p0123456789ab', channelId, person, deliveryId: 'd', ...detail });

describe('pageMessageOf', () => {
  it('the latest top-level message the channel delivered to that person; thread replies and others are not it', () => {
    const timeline = [
      row('page.opened', { pageId: 'p0123456789ab' }),
      delivered('slack-dm', 'alice', { channel: 'D1', ts: '1.000100' }),
      delivered('slack-dm', 'bob', { channel: 'D2', ts: '1.000300' }),
      delivered('oncall-dm', 'alice', { path: '/x' }),
      delivered('slack-dm', 'alice', { channel: 'D1', ts: '1.000200', thread_ts: '1.000100' }),
      row('message.failed', { pageId: 'p0123456789ab', channelId: 'slack-dm', person: 'alice', channel: 'D9', ts: '9' }),
      row('message.delivered', null),
    ];
    assert.deepEqual(pageMessageOf(timeline, 'slack-dm', 'alice'), { channel: 'D1', ts: '1.000100' });
    assert.deepEqual(pageMessageOf(timeline, 'slack-dm', 'bob'), { channel: 'D2', ts: '1.000300' });
    assert.equal(pageMessageOf(timeline, 'oncall-dm', 'alice'), null, 'no channel and ts: nothing to edit');
    assert.equal(pageMessageOf(timeline, 'slack-dm', 'carol'), null);
  });

  it('a message posted anew (the old one gone) is the one edited from then on', () => {
    const timeline = [delivered('slack-dm', 'alice', { channel: 'D1', ts: '1.000100' }), delivered('slack-dm', 'alice', { channel: 'D1', ts: '1.000400' })];
    assert.deepEqual(pageMessageOf(timeline, 'slack-dm', 'alice'), { channel: 'D1', ts: '1.000400' });
  });

  it('a channel names its own keys (Telegram: chat_id and message_id); a reply recorded with the message it answers keeps that message', () => {
    const keys = ['chat_id', 'message_id'];
    const timeline = [
      delivered('tg', 'alice', { chat_id: '123456789', message_id: '100' }),
      delivered('tg', 'alice', { chat_id: '123456789', message_id: '100', reply_message_id: '101' }),
      delivered('slack-dm', 'alice', { channel: 'D1', ts: '1.000100' }),
    ];
    assert.deepEqual(pageMessageOf(timeline, 'tg', 'alice', keys), { chat_id: '123456789', message_id: '100' });
    assert.equal(pageMessageOf(timeline, 'slack-dm', 'alice', keys), null, 'Slack\'s detail has none of them');
    assert.equal(pageMessageOf(timeline, 'tg', 'alice'), null, 'nor Telegram\'s of Slack\'s');
  });
});
