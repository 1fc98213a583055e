import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Heartbeat } from './oncall-config.js';
import { heartbeatsMatching, isHeartbeatOnly } from './heartbeat-match.js';

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

describe('isHeartbeatOnly', () => {
  it('every alert is a heartbeat of the delivery\'s source: proof of life, no incident', () => {
    const eu = { alertname: 'Watchdog', prometheus: 'eu', severity: 'none' };
    assert.equal(isHeartbeatOnly([watchdog, other], 'alertmanager', body(eu)), true);
    assert.equal(isHeartbeatOnly([watchdog, other], 'alertmanager', body(eu, { alertname: 'DeadMansSwitch' })), true);
  });

  it('a real alert beside it, another source, a partial match, no heartbeats or no alerts: an incident like any other', () => {
    const eu = { alertname: 'Watchdog', prometheus: 'eu' };
    assert.equal(isHeartbeatOnly([watchdog], 'alertmanager', body(eu, { alertname: 'HighErrorRate' })), false);
    assert.equal(isHeartbeatOnly([watchdog], 'other-source', body(eu)), false);
    assert.equal(isHeartbeatOnly([watchdog], 'alertmanager', body({ alertname: 'Watchdog' })), false);
    assert.equal(isHeartbeatOnly([], 'alertmanager', body(eu)), false);
    assert.equal(isHeartbeatOnly([watchdog], 'alertmanager', body()), false);
  });
});
