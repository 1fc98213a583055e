import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Heartbeat } from './oncall-config.js';
import { heartbeatsMatching } from './heartbeat-match.js';

const watchdog: Heartbeat = { id: 'watchdog', source: 'alertmanager', match: { alertname: 'Watchdog', prometheus: 'eu' }, everyMs: 300_000, graceMs: 120_000, policy: 'p' };
const other: Heartbeat = { ...watchdog, id: 'other', match: { alertname: 'DeadMansSwitch' } };
const body = (...labels: Array<Record<string, unknown>>) => ({ status: 'firing', alerts: labels.map((l) => ({ status: 'firing', labels: l })) });

describe('heartbeatsMatching', () => {
  it('any alert carrying every label of match, exactly, from the right source', () => {
    const delivery = body({ alertname: 'HighErrorRate' }, { alertname: 'Watchdog', prometheus: 'eu', severity: 'none' });
    assert.deepEqual(heartbeatsMatching([watchdog, other], 'alertmanager', delivery).map((h) => h.id), ['watchdog']);
    assert.deepEqual(heartbeatsMatching([watchdog], 'other-source', delivery), []);
  });

  it('a partial or different value, a non-string label, or no alerts: no match', () => {
    assert.deepEqual(heartbeatsMatching([watchdog], 'alertmanager', body({ alertname: 'Watchdog' })), []);
    assert.deepEqual(heartbeatsMatching([watchdog], 'alertmanager', body({ alertname: 'Watchdog', prometheus: 'EU' })), []);
    assert.deepEqual(heartbeatsMatching([watchdog], 'alertmanager', body({ alertname: 'Watchdog', prometheus: 1 })), []);
    assert.deepEqual(heartbeatsMatching([watchdog], 'alertmanager', { alerts: 'no' }), []);
    assert.deepEqual(heartbeatsMatching([watchdog], 'alertmanager', null), []);
  });
});
