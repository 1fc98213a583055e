import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTs } from './clock.js';

describe('isoTs', () => {
  it('formats each millisecond as Date does, whether asked again, in turn or out of order', () => {
    const times = [0, 0, 1, 1_764_115_200_123, 1_764_115_200_123, 1_764_115_200_124, 1, -1, 253_402_300_799_999];
    for (const ms of times) assert.equal(isoTs(ms), new Date(ms).toISOString(), String(ms));
  });

  it('an invalid time throws as Date does, and the next call is still right', () => {
    assert.equal(isoTs(5), '1970-01-01T00:00:00.005Z');
    assert.throws(() => isoTs(Number.NaN), RangeError);
    assert.equal(isoTs(5), '1970-01-01T00:00:00.005Z');
    assert.equal(isoTs(6), '1970-01-01T00:00:00.006Z');
  });
});
