import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSmsReply, smsReplyCode } from './sms-reply.js';

const KEY = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

describe('SMS reply codes (§21.4)', () => {
  it('six digits, the same for a page and a number every time, another for another page, number, agent or key', () => {
    const code = smsReplyCode(KEY, 'ops', 'p0a1b2c3d4e5f', '+4915112345678');
    assert.match(code, /^\d{6}$/);
    assert.equal(smsReplyCode(KEY, 'ops', 'p0a1b2c3d4e5f', '+4915112345678'), code);
    const others = [smsReplyCode(KEY, 'ops', 'p0a1b2c3d4e5g', '+4915112345678'), smsReplyCode(KEY, 'ops', 'p0a1b2c3d4e5f', '+4915112345679'),
      smsReplyCode(KEY, 'dev', 'p0a1b2c3d4e5f', '+4915112345678'), smsReplyCode(`${KEY.slice(1)}0`, 'ops', 'p0a1b2c3d4e5f', '+4915112345678')];
    for (const other of others) assert.notEqual(other, code);
  });

  it('spreads over the whole range, leading zeros kept (10,000 pages: no digit position stuck, some codes below 100000)', () => {
    const codes = Array.from({ length: 10_000 }, (_, i) => smsReplyCode(KEY, 'ops', `p${String(i).padStart(12, '0')}`, '+4915112345678'));
    assert.ok(codes.every((c) => /^\d{6}$/.test(c)));
    assert.ok(codes.some((c) => c.startsWith('0')), 'codes below 100000 keep their zeros');
    for (let pos = 0; pos < 6; pos += 1) assert.equal(new Set(codes.map((c) => c[pos])).size, 10, `digit ${pos} takes all ten values`);
    assert.ok(new Set(codes).size > 9_900, 'hardly any two pages share a code');
  });

  it('reads 4<code> and 6<code>, spaces around or between allowed; anything else is no reply', () => {
    assert.deepEqual(parseSmsReply('4123456'), { action: 'ack', code: '123456' });
    assert.deepEqual(parseSmsReply(' 6 004711\n'), { action: 'resolve', code: '004711' });
    for (const text of ['5123456', '412345', '41234567', 'ack 123456', '4123456 thanks', 'STOP', '', `4${'1'.repeat(100)}`]) {
      assert.equal(parseSmsReply(text), null, text);
    }
  });
});
