import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_KEY_CHARS, incidentKey, parseKeyTemplate } from './incident-key.js';

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
