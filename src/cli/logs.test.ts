import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atLeast, describeSystemFrame } from './logs.js';

describe('svc logs for people', () => {
  it('stream notices in words, set apart by dashes', () => {
    assert.equal(describeSystemFrame({ system: 'rotated', agent: 'oncall-escalator' }), '— log file of oncall-escalator rotated; following the new one —');
    assert.equal(describeSystemFrame({ system: 'truncated', agent: 'a' }), '— log file of a truncated; reading it from the start —');
    assert.equal(describeSystemFrame({ system: 'dropped', count: 12 }), '— 12 records dropped (this reader was too slow); see `svc events` —');
    assert.equal(describeSystemFrame({ system: 'tailer-error', agent: 'a' }), "— log file of a cannot be read (the daemon's own log says why) —");
    assert.equal(describeSystemFrame({ system: 'invalid-record', agent: 'a', reason: 'not-json' }), '— a line of a is not a log record (not-json), skipped —');
    assert.equal(describeSystemFrame({ system: 'something-new' }), '— stream notice: {"system":"something-new"} —');
  });

  it('--level keeps that level and above; a record of an unknown level is always shown', () => {
    assert.deepEqual(['debug', 'info', 'warn', 'error', 'fatal'].filter((l) => atLeast(l, 'warn')), ['warn', 'error', 'fatal']);
    assert.deepEqual(['debug', 'info'].filter((l) => atLeast(l, undefined)), ['debug', 'info']);
  });
});
