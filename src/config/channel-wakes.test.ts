import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelWakes } from './channel-wakes.js';

describe('which channel types wake their person (contract §23.1)', () => {
  it('ntfy, pushover, twilio, telegram, slack and teams wake; mail, files, webhooks and PagerDuty do not', () => {
    assert.deepEqual(['ntfy', 'pushover', 'twilio', 'telegram', 'slack', 'teams', 'email', 'file', 'webhook', 'pagerduty'].map(channelWakes),
      [true, true, true, true, true, true, false, false, false, false]);
  });

  it('no type (a channel no longer configured) or a name that is no channel type does not wake, an object\'s own keys included', () => {
    assert.deepEqual([undefined, 'sms', 'toString', '__proto__', 'constructor'].map(channelWakes), [false, false, false, false, false]);
  });
});
