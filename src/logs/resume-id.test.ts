import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { decodeResumeId, encodeResumeId } from './resume-id.js';

describe('resume id', () => {
  it('round-trips the position of every agent as an opaque base64url token', () => {
    const positions = new Map([
      ['alpha', { ino: 12345, end: 1000, len: 87, crc: 4_000_000_000 }],
      ['beta.2', { ino: 0, end: 0, len: 0, crc: 0 }],
    ]);
    const id = encodeResumeId(positions);
    assert.match(id, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeResumeId(id), { ok: true, positions });
  });

  it('rejects anything else, naming the header', () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['', 'a b', 'x'.repeat(20_000), b64({ a: 1 }), b64([2]), b64([1, ['alpha', 1, 2, 3]]), b64([1, ['../x', 1, 2, 1, 0]]),
      b64([1, ['alpha', -1, 2, 1, 0]]), b64([1, ['alpha', 1, 2, 3, 0]]), b64([1, ['alpha', 1, 2, 1, 2 ** 32]]),
      b64([1, ['alpha', 1, 2, 1, 0], ['alpha', 1, 2, 1, 0]]), b64([1, ['alpha', 1.5, 2, 1, 0]])]) {
      const r = decodeResumeId(bad);
      assert.equal(r.ok, false, bad.slice(0, 40));
      assert.match((r as { error: string }).error, /^invalid Last-Event-ID: /);
    }
  });
});
