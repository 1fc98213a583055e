import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendarKey, checkCalendarKey } from './calendar-key.js';

describe('calendar keys (§24.7)', () => {
  const secret = 'a'.repeat(64);

  it('a key opens the calendar it was made for, naming its person, and no other', () => {
    const whole = calendarKey(secret, 'agent-a', 'primary', null);
    const alices = calendarKey(secret, 'agent-a', 'primary', 'alice.smith');
    assert.match(whole, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(alices.startsWith('alice.smith.'));
    assert.deepEqual(checkCalendarKey(secret, 'agent-a', 'primary', whole), { person: null });
    assert.deepEqual(checkCalendarKey(secret, 'agent-a', 'primary', alices), { person: 'alice.smith' });
    assert.equal(checkCalendarKey(secret, 'agent-a', 'secondary', whole), false, 'another schedule');
    assert.equal(checkCalendarKey(secret, 'agent-b', 'primary', whole), false, 'the same schedule id in another agent');
    assert.equal(checkCalendarKey(secret, 'agent-a', 'primary', alices.replace('alice.smith', 'bob')), false, 'the person swapped');
    assert.equal(checkCalendarKey(secret, 'agent-a', 'primary', `bob.${whole}`), false, 'a person put in front of a schedule key');
  });

  it('rotating the secret revokes every key; malformed keys are refused before any HMAC', () => {
    const key = calendarKey(secret, 'agent-a', 'primary', 'alice');
    assert.equal(checkCalendarKey('b'.repeat(64), 'agent-a', 'primary', key), false);
    for (const bad of ['', 'x'.repeat(200), 'alice.<script>', `${key}=`]) assert.equal(checkCalendarKey(secret, 'agent-a', 'primary', bad), false, bad);
  });
});
