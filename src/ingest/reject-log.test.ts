import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { createRejectLog } from './reject-log.js';

describe('refusal log sampling', () => {
  it('logs the first refusal of a source and reason, then one line per 10 s with the count left out', () => {
    const clock = fakeClock(0);
    const log = createRejectLog(clock);
    assert.deepEqual(log.admit('am', 'bad-signature'), { log: true, suppressed: 0 });
    for (let i = 0; i < 500; i++) assert.deepEqual(log.admit('am', 'bad-signature'), { log: false });
    clock.advance(9_999);
    assert.deepEqual(log.admit('am', 'bad-signature'), { log: false });
    clock.advance(1);
    assert.deepEqual(log.admit('am', 'bad-signature'), { log: true, suppressed: 501 });
    assert.deepEqual(log.admit('am', 'bad-signature'), { log: false });
  });

  it('keeps sources and reasons apart', () => {
    const log = createRejectLog(fakeClock(0));
    assert.equal(log.admit('am', 'bad-signature').log, true);
    assert.equal(log.admit('am', 'missing-signature').log, true);
    assert.equal(log.admit('grafana', 'bad-signature').log, true);
    assert.equal(log.admit('am', 'bad-signature').log, false);
  });
});
