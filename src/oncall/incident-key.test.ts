import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEARTBEAT_KEY_PREFIX, MAX_KEY_CHARS, heartbeatKey, incidentKey, parseKeyTemplate } from './incident-key.js';

const payload = {
  groupKey: '{}/{severity="critical"}:{alertname="HighErrorRate"}',
  groupLabels: { alertname: 'HighErrorRate', cluster: 'eu-1' },
  commonLabels: { alertname: 'HighErrorRate', job: 'checkout-api' },
  alerts: [],
};

describe('incidentKey', () => {
  it("groupKey (the default): Alertmanager's group key; without one, the fingerprint", () => {
    assert.equal(incidentKey({ kind: 'groupKey' }, payload, 'fp1'), payload.groupKey);
    assert.equal(incidentKey({ kind: 'groupKey' }, { alerts: [] }, 'fp1'), 'fp1');
    assert.equal(incidentKey({ kind: 'groupKey' }, null, 'fp1'), 'fp1');
  });

  it('fingerprint: the event fingerprint', () => {
    assert.equal(incidentKey({ kind: 'fingerprint' }, payload, 'fp1'), 'fp1');
  });

  it('template: commonLabels first, then groupLabels', () => {
    const rule = { kind: 'template' as const, template: '{{labels.alertname}}/{{ labels.cluster }}/{{labels.job}}' };
    assert.equal(incidentKey(rule, payload, 'fp1'), 'HighErrorRate/eu-1/checkout-api');
  });

  it('template with a label in neither set: the groupKey rule instead, never a half key', () => {
    const rule = { kind: 'template' as const, template: '{{labels.alertname}}/{{labels.region}}' };
    assert.equal(incidentKey(rule, payload, 'fp1'), payload.groupKey);
    assert.equal(incidentKey(rule, {}, 'fp1'), 'fp1');
  });

  it('a key longer than the limit becomes its SHA-256', () => {
    const long = { groupKey: 'x'.repeat(MAX_KEY_CHARS + 1) };
    assert.match(incidentKey({ kind: 'groupKey' }, long, 'fp'), /^sha256:[0-9a-f]{64}$/);
    assert.equal(incidentKey({ kind: 'groupKey' }, { groupKey: 'x'.repeat(MAX_KEY_CHARS) }, 'fp').length, MAX_KEY_CHARS);
  });

  it('an alert\'s key never lies in the heartbeats\' space, by any rule; other keys are as they were, and no two alerts\' keys meet', () => {
    const hb = heartbeatKey('watchdog');
    assert.equal(hb, 'heartbeat:watchdog');
    const rules = [{ kind: 'groupKey' as const }, { kind: 'fingerprint' as const }, { kind: 'template' as const, template: '{{labels.k}}' }];
    for (const rule of rules) {
      const key = incidentKey(rule, { groupKey: hb, commonLabels: { k: hb } }, hb);
      assert.ok(!key.startsWith(HEARTBEAT_KEY_PREFIX), `${rule.kind}: ${key}`);
      assert.equal(key, '~heartbeat:watchdog');
    }
    const keys = ['heartbeat:x', '~heartbeat:x', '~~heartbeat:x', 'x', '~x', 'alert:x']
      .map((k) => incidentKey({ kind: 'groupKey' }, { groupKey: k }, 'fp'));
    assert.deepEqual(keys, ['~heartbeat:x', '~~heartbeat:x', '~~~heartbeat:x', 'x', '~~x', 'alert:x']);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(incidentKey({ kind: 'groupKey' }, payload, 'fp1'), payload.groupKey, 'an Alertmanager groupKey keeps its value');
    assert.match(incidentKey({ kind: 'groupKey' }, { groupKey: `heartbeat:${'x'.repeat(MAX_KEY_CHARS)}` }, 'fp'), /^sha256:[0-9a-f]{64}$/);
  });
});

describe('parseKeyTemplate', () => {
  it('names what is wrong', () => {
    assert.deepEqual(parseKeyTemplate('{{labels.a}}-x'), { ok: true, parts: [{ label: 'a' }, { text: '-x' }] });
    assert.deepEqual(parseKeyTemplate('{{annotations.a}}'), { ok: false, error: 'placeholder {{annotations.a}} is not {{labels.NAME}}' });
    assert.deepEqual(parseKeyTemplate('static'), { ok: false, error: 'it names no {{labels.NAME}}' });
    assert.deepEqual(parseKeyTemplate('{{labels.a}}}}'), { ok: false, error: 'unbalanced {{ or }}' });
    assert.deepEqual(parseKeyTemplate('{{labels.1a}}'), { ok: false, error: 'placeholder {{labels.1a}} is not {{labels.NAME}}' });
  });
});
