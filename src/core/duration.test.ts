import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration } from './duration.js';

describe('durations written for people', () => {
  it('the largest whole unit, read back to the same milliseconds; nothing at all is 0s, not 0ms', () => {
    for (const [ms, text] of [[2_592_000_000, '30d'], [1_209_600_000, '2w'], [5_400_000, '90m'], [90_000, '90s'], [1_500, '1500ms'], [0, '0s']] as const) {
      assert.equal(formatDuration(ms), text);
      assert.equal(parseDuration(text), ms);
    }
  });

  it('refuses what is not one number and one unit', () => {
    for (const text of ['', '5', '1.5h', '-5m', '5 minutes', '1234567890s']) assert.equal(parseDuration(text), null, text);
  });
});
