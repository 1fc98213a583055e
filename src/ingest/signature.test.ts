import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkTimestamp, parseSignature, signBody, verifySignature } from './signature.js';

const SECRET = 'test-secret-0123456789abcdef';
const BODY = Buffer.from('{"alerts":[{"status":"firing"}]}');
const HEX = createHmac('sha256', SECRET).update(BODY).digest('hex');
const TS = '1700000000';
const TS_HEX = createHmac('sha256', SECRET).update(`${TS}.`).update(BODY).digest('hex');

describe('parseSignature', () => {
  const valid: Array<[string, string]> = [
    ['prefixed', `sha256=${HEX}`],
    ['bare', HEX],
    ['uppercase hex', HEX.toUpperCase()],
    ['uppercase hex, prefixed', `sha256=${HEX.toUpperCase()}`],
    ['uppercase prefix', `SHA256=${HEX}`],
  ];
  for (const [name, header] of valid) {
    it(`accepts ${name}`, () => {
      const parsed = parseSignature(header);
      assert.ok(parsed);
      assert.equal(parsed.toString('hex'), HEX);
    });
  }

  const invalid: Array<[string, string | undefined]> = [
    ['undefined', undefined],
    ['empty', ''],
    ['prefix only', 'sha256='],
    ['63 hex', HEX.slice(0, 63)],
    ['65 hex', `${HEX}0`],
    ['62 hex, prefixed', `sha256=${HEX.slice(0, 62)}`],
    ['128 hex', HEX + HEX],
    ['non-hex', `sha256=${'g'.repeat(64)}`],
    ['other algorithm', `sha1=${HEX}`],
    ['md5 prefix', `md5=${HEX}`],
    ['leading space', ` ${HEX}`],
    ['trailing space', `${HEX} `],
    ['two values joined', `${HEX}, ${HEX}`],
    ['base64', Buffer.from(HEX, 'hex').toString('base64')],
    ['colon separator', `sha256:${HEX}`],
    ['newline', `${HEX}\n`],
  ];
  for (const [name, header] of invalid) {
    it(`rejects ${name}`, () => assert.equal(parseSignature(header), null));
  }
});

describe('signBody', () => {
  it('signs the raw body as sha256=<hex>', () => {
    assert.equal(signBody(SECRET, BODY), `sha256=${HEX}`);
    assert.equal(signBody(SECRET, BODY.toString()), `sha256=${HEX}`);
  });
  it('signs <ts>.<body> when given a timestamp', () => {
    assert.equal(signBody(SECRET, BODY, TS), `sha256=${TS_HEX}`);
  });
});

describe('verifySignature', () => {
  const cases: Array<{ name: string; header: string | undefined; timestamp?: string; body?: Buffer; secret?: string; ok: boolean }> = [
    { name: 'prefixed', header: `sha256=${HEX}`, ok: true },
    { name: 'bare', header: HEX, ok: true },
    { name: 'uppercase hex', header: HEX.toUpperCase(), ok: true },
    { name: 'missing', header: undefined, ok: false },
    { name: 'empty', header: '', ok: false },
    { name: 'wrong length (short)', header: `sha256=${HEX.slice(0, 62)}`, ok: false },
    { name: 'wrong length (long)', header: `sha256=${HEX}00`, ok: false },
    { name: 'non-hex', header: `sha256=${'z'.repeat(64)}`, ok: false },
    { name: 'one digit changed', header: `sha256=${HEX.slice(0, 63)}${HEX.endsWith('0') ? '1' : '0'}`, ok: false },
    { name: 'other secret', header: signBody('another-secret-0123456789', BODY), ok: false },
    { name: 'other body', header: `sha256=${HEX}`, body: Buffer.from('{"alerts":[]}'), ok: false },
    { name: 'body with trailing newline', header: `sha256=${HEX}`, body: Buffer.concat([BODY, Buffer.from('\n')]), ok: false },
    { name: 'timestamped', header: `sha256=${TS_HEX}`, timestamp: TS, ok: true },
    { name: 'timestamped, bare', header: TS_HEX, timestamp: TS, ok: true },
    { name: 'timestamp expected, body-only signature', header: `sha256=${HEX}`, timestamp: TS, ok: false },
    { name: 'timestamped signature, no timestamp given', header: `sha256=${TS_HEX}`, ok: false },
    { name: 'other timestamp', header: `sha256=${TS_HEX}`, timestamp: '1700000001', ok: false },
  ];
  for (const c of cases) {
    it(`${c.ok ? 'accepts' : 'rejects'} ${c.name}`, () => {
      const result = verifySignature({ secret: c.secret ?? SECRET, body: c.body ?? BODY, header: c.header,
        ...(c.timestamp === undefined ? {} : { timestamp: c.timestamp }) });
      assert.equal(result, c.ok);
    });
  }
  it('never throws on hostile input', () => {
    for (const header of ['\u0000', 'sha256=' + '\u00ff'.repeat(64), 'x'.repeat(100_000)]) {
      assert.equal(verifySignature({ secret: SECRET, body: BODY, header }), false);
    }
  });
});

describe('checkTimestamp', () => {
  const now = 1_700_000_000_000;
  const cases: Array<[string, string | undefined, ReturnType<typeof checkTimestamp>]> = [
    ['exactly now', '1700000000', 'ok'],
    ['300 s ago', '1699999700', 'ok'],
    ['300 s ahead', '1700000300', 'ok'],
    ['301 s ago', '1699999699', 'out-of-window'],
    ['301 s ahead', '1700000301', 'out-of-window'],
    ['zero', '0', 'out-of-window'],
    ['missing', undefined, 'missing'],
    ['empty', '', 'missing'],
    ['milliseconds', '1700000000000', 'malformed'],
    ['fraction', '1700000000.5', 'malformed'],
    ['negative', '-1700000000', 'malformed'],
    ['plus sign', '+1700000000', 'malformed'],
    ['exponent', '1.7e9', 'malformed'],
    ['ISO date', '2023-11-14T22:13:20Z', 'malformed'],
    ['hex', '0x6553f100', 'malformed'],
    ['space inside', '1700 000000', 'malformed'],
  ];
  for (const [name, ts, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(checkTimestamp(ts, now), expected));
  }
  it('honours a custom tolerance', () => {
    assert.equal(checkTimestamp('1699999990', now, 5), 'out-of-window');
    assert.equal(checkTimestamp('1699999995', now, 5), 'ok');
  });
});
