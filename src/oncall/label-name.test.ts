import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ALERT_NAME_MAX, alertNameOf } from './label-name.js';

it('alertNameOf: commonLabels, else the first alert\'s, else a plain payload\'s labels; made printable and bounded', () => {
  assert.equal(alertNameOf({ commonLabels: { alertname: 'Common' }, alerts: [{ labels: { alertname: 'First' } }] }), 'Common');
  assert.equal(alertNameOf({ commonLabels: {}, alerts: [{ labels: { alertname: 'First' } }, { labels: { alertname: 'Second' } }] }), 'First');
  assert.equal(alertNameOf({ labels: { alertname: 'Plain' } }), 'Plain');
  assert.equal(alertNameOf({ alerts: [{ labels: { alertname: 7 } }] }), null);
  assert.equal(alertNameOf({ commonLabels: { alertname: ' \u0000\u200b ' } }), null);
  assert.equal(alertNameOf({ commonLabels: { alertname: 'Disk\tfull\nnow\u2028' } }), 'Disk full now');
  assert.equal(alertNameOf(null), null);
  const long = `${'x'.repeat(ALERT_NAME_MAX - 1)}😀😀`;
  assert.equal(alertNameOf({ commonLabels: { alertname: long } }), `${'x'.repeat(ALERT_NAME_MAX - 1)}😀`, 'whole code points');
  assert.equal(alertNameOf({ commonLabels: { alertname: 'a\ud800b' } }), 'a b', 'a lone surrogate');
});
