import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OncallConfig } from './oncall-config.js';
import { oncallStatus } from './oncall-status.js';

const config = {
  schedules: [{ id: 'primary' }, { id: 'secondary' }],
  heartbeats: [
    { id: 'watchdog', source: 'am', match: {}, everyMs: 60_000, graceMs: 30_000, policy: 'p' },
    { id: 'backup', source: 'am', match: {}, everyMs: 3_600_000, graceMs: 0, policy: 'p' },
    { id: 'fresh', source: 'am', match: {}, everyMs: 60_000, graceMs: 0, policy: 'p' },
  ],
} as unknown as OncallConfig;

describe('oncallStatus (/status agents[].oncall, contract §17.9)', () => {
  it('open pages, schedule ids, and each heartbeat: ok within every + grace, missing after, waiting when never seen', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const seen = new Map([['watchdog', now - 90_000], ['backup', now - 3_600_001]]);
    assert.deepEqual(oncallStatus(config, 3, seen, now), {
      pagesOpen: 3,
      schedules: ['primary', 'secondary'],
      heartbeats: [
        { id: 'watchdog', lastSeen: '2026-11-25T11:58:30.000Z', state: 'ok' },
        { id: 'backup', lastSeen: '2026-11-25T10:59:59.999Z', state: 'missing' },
        { id: 'fresh', lastSeen: null, state: 'waiting' },
      ],
    });
    assert.equal(oncallStatus(config, 0, seen, now + 1).heartbeats[0]?.state, 'missing');
  });
});
