import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { alertmanagerFingerprint, DERIVED_PREFIX, eventFingerprint, isHeaderFingerprintAllowed } from './fingerprint.js';

type Alert = Record<string, unknown>;
const T1 = '2026-11-25T10:00:00Z', T2 = '2026-11-25T10:05:00Z', T3 = '2026-11-25T10:09:00Z', ZERO = '0001-01-01T00:00:00Z';

const alert = (fingerprint: string, status: string, startsAt = T1, endsAt = ZERO): Alert =>
  ({ fingerprint, status, startsAt, endsAt, labels: { alertname: 'HighErrorRate' }, annotations: { summary: 'errors' } });
const notification = (status: string, alerts: Alert[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  version: '4', groupKey: '{}:{alertname="HighErrorRate"}', status, receiver: 'svc', ...extra, alerts,
});

describe('alertmanagerFingerprint', () => {
  const firing = notification('firing', [alert('aaa', 'firing'), alert('bbb', 'firing')]);

  it('is the prefix and the hex SHA-256 of the canonical JSON of groupKey, status and the sorted alert identities', () => {
    const id = (fp: string): string => `{"endsAt":"${ZERO}","fingerprint":"${fp}","startsAt":"${T1}","status":"firing"}`;
    const text = JSON.stringify({ alerts: [id('aaa'), id('bbb')], groupKey: '{}:{alertname="HighErrorRate"}', status: 'firing' });
    assert.equal(alertmanagerFingerprint(firing), DERIVED_PREFIX + createHash('sha256').update(text).digest('hex'));
  });

  const same: Array<[string, Record<string, unknown>]> = [
    ['the same body again (a retry)', notification('firing', [alert('aaa', 'firing'), alert('bbb', 'firing')])],
    ['alerts in another order', notification('firing', [alert('bbb', 'firing'), alert('aaa', 'firing')])],
    ['fields outside the key changed (receiver, externalURL, annotations)', notification('firing',
      [{ ...alert('aaa', 'firing'), annotations: { summary: 'other' } }, alert('bbb', 'firing')],
      { receiver: 'other', externalURL: 'http://am:9093', truncatedAlerts: 0 })],
  ];
  for (const [name, body] of same) it(`same key: ${name}`, () => assert.equal(alertmanagerFingerprint(body), alertmanagerFingerprint(firing)));

  const different: Array<[string, Record<string, unknown>]> = [
    ['the group resolved', notification('resolved', [alert('aaa', 'resolved', T1, T2), alert('bbb', 'resolved', T1, T2)])],
    ['one alert resolved', notification('firing', [alert('aaa', 'firing'), alert('bbb', 'resolved', T1, T2)])],
    ['a new alert joined', notification('firing', [alert('aaa', 'firing'), alert('bbb', 'firing'), alert('ccc', 'firing')])],
    ['another group', { ...firing, groupKey: '{}:{alertname="DiskFull"}' }],
    ['a re-fire after a resolve (new startsAt)', notification('firing', [alert('aaa', 'firing', T3), alert('bbb', 'firing', T3)])],
    ['an alert with another endsAt', notification('firing', [alert('aaa', 'firing', T1, T2), alert('bbb', 'firing')])],
  ];
  for (const [name, body] of different) it(`new key: ${name}`, () => assert.notEqual(alertmanagerFingerprint(body), alertmanagerFingerprint(firing)));

  it('fire, resolve, re-fire: three keys', () => {
    const keys = new Set([
      alertmanagerFingerprint(notification('firing', [alert('aaa', 'firing', T1)])),
      alertmanagerFingerprint(notification('resolved', [alert('aaa', 'resolved', T1, T2)])),
      alertmanagerFingerprint(notification('firing', [alert('aaa', 'firing', T3)])),
    ]);
    assert.equal(keys.size, 3);
  });

  it('alerts without a fingerprint are told apart by their labels', () => {
    const noFp = (labels: unknown): Record<string, unknown> => notification('firing', [{ status: 'firing', startsAt: T1, labels }]);
    assert.notEqual(alertmanagerFingerprint(noFp({ alertname: 'A' })), alertmanagerFingerprint(noFp({ alertname: 'B' })));
    assert.equal(alertmanagerFingerprint(noFp({ a: '1', b: '2' })), alertmanagerFingerprint(noFp({ b: '2', a: '1' })), 'label order is not identity');
  });

  it('label values cannot forge another encoding (no separator to inject)', () => {
    const a = notification('firing', [{ status: 'firing', labels: { x: 'a","y":"b' } }]);
    const b = notification('firing', [{ status: 'firing', labels: { x: 'a', y: 'b' } }]);
    assert.notEqual(alertmanagerFingerprint(a), alertmanagerFingerprint(b));
  });

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
    assert.match(key ?? '', /^derived:[0-9a-f]{64}$/);
  });

  const text = fc.string({ maxLength: 8 });
  const arbAlert = fc.record({
    fingerprint: fc.option(text, { nil: undefined }),
    labels: fc.dictionary(text, text, { maxKeys: 3 }),
    status: fc.constantFrom('firing', 'resolved'),
    startsAt: fc.option(text, { nil: undefined }),
    endsAt: fc.option(text, { nil: undefined }),
  }, { requiredKeys: ['labels', 'status'] });
  const arbNotification = fc.record({ groupKey: text, status: fc.constantFrom('firing', 'resolved'), alerts: fc.array(arbAlert, { maxLength: 4 }) })
    .map((n) => ({ version: '4', ...n }));
  /** What the key must depend on, in a form where equality is plain string equality. */
  const identity = (n: { groupKey: string; status: string; alerts: Alert[] }): string => JSON.stringify([n.groupKey, n.status,
    n.alerts.map((a) => JSON.stringify([typeof a.fingerprint === 'string' && a.fingerprint !== '' ? ['fp', a.fingerprint]
      : ['labels', Object.entries(a.labels as Record<string, string>).sort()], a.status, a.startsAt ?? null, a.endsAt ?? null])).sort()]);

  it('property: two notifications get one key exactly when groupKey, status and the alert identities agree', () => {
    fc.assert(fc.property(arbNotification, arbNotification, (a, b) => {
      assert.equal(alertmanagerFingerprint(a) === alertmanagerFingerprint(b), identity(a) === identity(b));
    }), { numRuns: 2000 });
  });

  it('property: any change to one alert\'s status, startsAt or endsAt gives a new key', () => {
    fc.assert(fc.property(arbNotification.filter((n) => n.alerts.length > 0), fc.nat(), fc.constantFrom('status', 'startsAt', 'endsAt'), text,
      (n, pick, key, value) => {
        const i = pick % n.alerts.length;
        const original = n.alerts[i] as Alert;
        fc.pre((original[key] ?? null) !== value);
        const changed = { ...n, alerts: n.alerts.map((a, j) => (j === i ? { ...a, [key]: value } : a)) };
        assert.notEqual(alertmanagerFingerprint(changed), alertmanagerFingerprint(n));
      }), { numRuns: 1000 });
  });

  it('property: the same notification retried (alerts reordered, other fields changed) keeps its key', () => {
    fc.assert(fc.property(arbNotification, text, fc.nat(), (n, receiver, shift) => {
      const k = n.alerts.length === 0 ? 0 : shift % n.alerts.length;
      const retried = { ...n, receiver, externalURL: `http://${receiver}`, alerts: [...n.alerts.slice(k), ...n.alerts.slice(0, k)].reverse()
        .map((a) => ({ ...a, annotations: { summary: receiver }, generatorURL: receiver })) };
      assert.equal(alertmanagerFingerprint(retried), alertmanagerFingerprint(n));
    }), { numRuns: 1000 });
  });
});

describe('eventFingerprint', () => {
  const firing = notification('firing', [alert('aaa', 'firing')]);

  it('the sender header wins over the derived key', () => {
    assert.equal(eventFingerprint('fp-1', JSON.stringify(firing)), 'fp-1');
    assert.equal(eventFingerprint(undefined, JSON.stringify(firing)), alertmanagerFingerprint(firing));
    assert.equal(eventFingerprint(undefined, '{"hello":"world"}'), null);
    assert.equal(eventFingerprint(undefined, '{"groupKey": 3}'), null);
  });

  it('header and derived keys live in separate spaces: no allowed header equals a derived key', () => {
    const derived = alertmanagerFingerprint(firing) as string;
    assert.equal(isHeaderFingerprintAllowed(derived), false, 'the derived key itself is refused as a header');
    const bareHex = derived.slice(DERIVED_PREFIX.length);
    assert.equal(isHeaderFingerprintAllowed(bareHex), true);
    assert.notEqual(eventFingerprint(bareHex, JSON.stringify(firing)), derived);
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'derived:0123456789abcdef'.split('')), maxLength: 80 }), (header) => {
      if (isHeaderFingerprintAllowed(header)) assert.ok(!header.startsWith(DERIVED_PREFIX));
    }));
  });
});
