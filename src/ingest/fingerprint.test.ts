import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertmanagerFingerprint, eventFingerprint } from './fingerprint.js';

const notification = (status: string, alerts: Array<[string, string]>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  version: '4', groupKey: '{}:{alertname="HighErrorRate"}', status, receiver: 'svc', ...extra,
  alerts: alerts.map(([fingerprint, s]) => ({ fingerprint, status: s, labels: { alertname: 'HighErrorRate' } })),
});

describe('alertmanagerFingerprint', () => {
  const firing = notification('firing', [['aaa', 'firing'], ['bbb', 'firing']]);

  it('is the hex SHA-256 of groupKey, status and the sorted fingerprint:status list', async () => {
    const { createHash } = await import('node:crypto');
    const want = createHash('sha256').update('{}:{alertname="HighErrorRate"}\nfiring\naaa:firing\nbbb:firing').digest('hex');
    assert.equal(alertmanagerFingerprint(firing), want);
  });

  const same: Array<[string, Record<string, unknown>]> = [
    ['the same body again (a retry)', notification('firing', [['aaa', 'firing'], ['bbb', 'firing']])],
    ['alerts in another order', notification('firing', [['bbb', 'firing'], ['aaa', 'firing']])],
    ['fields outside the key changed (receiver, timestamps, annotations)', notification('firing', [['aaa', 'firing'], ['bbb', 'firing']],
      { receiver: 'other', externalURL: 'http://am:9093', truncatedAlerts: 0 })],
  ];
  for (const [name, body] of same) it(`same key: ${name}`, () => assert.equal(alertmanagerFingerprint(body), alertmanagerFingerprint(firing)));

  const different: Array<[string, Record<string, unknown>]> = [
    ['the group resolved', notification('resolved', [['aaa', 'resolved'], ['bbb', 'resolved']])],
    ['one alert resolved', notification('firing', [['aaa', 'firing'], ['bbb', 'resolved']])],
    ['a new alert joined', notification('firing', [['aaa', 'firing'], ['bbb', 'firing'], ['ccc', 'firing']])],
    ['another group', { ...firing, groupKey: '{}:{alertname="DiskFull"}' }],
  ];
  for (const [name, body] of different) it(`new key: ${name}`, () => assert.notEqual(alertmanagerFingerprint(body), alertmanagerFingerprint(firing)));

  const notAlertmanager: Array<[string, unknown]> = [
    ['no groupKey', { version: '4', status: 'firing', alerts: [] }],
    ['alerts not a list', { version: '4', groupKey: 'g', status: 'firing', alerts: {} }],
    ['numeric version', { version: 4, groupKey: 'g', status: 'firing', alerts: [] }],
    ['an array', []],
    ['null', null],
  ];
  for (const [name, body] of notAlertmanager) it(`no key: ${name}`, () => assert.equal(alertmanagerFingerprint(body), null));

  it('tolerates odd alerts (no fingerprint, not objects) without throwing', () => {
    const key = alertmanagerFingerprint({ version: '4', groupKey: 'g', status: 'firing', alerts: [null, 3, { status: 'firing' }] });
    assert.match(key ?? '', /^[0-9a-f]{64}$/);
  });

  it('the sender header wins over the derived key', () => {
    assert.equal(eventFingerprint('fp-1', JSON.stringify(firing)), 'fp-1');
    assert.equal(eventFingerprint(undefined, JSON.stringify(firing)), alertmanagerFingerprint(firing));
    assert.equal(eventFingerprint(undefined, '{"hello":"world"}'), null);
    assert.equal(eventFingerprint(undefined, '{"groupKey": 3}'), null);
  });
});
