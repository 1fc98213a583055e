import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Policy } from './oncall-config.js';
import { policySha256 } from './policy-hash.js';

const policy: Policy = {
  id: 'default', repeat: 2, ackTimeoutMs: 1_800_000, onExhausted: [],
  steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 300_000 }],
};

describe('policySha256', () => {
  it('SHA-256 of the RFC 8785 JSON: key order does not matter, any value does', () => {
    const canonical = '{"ackTimeoutMs":1800000,"id":"default","onExhausted":[],"repeat":2,"steps":[{"afterMs":300000,"notify":[{"id":"primary","kind":"schedule"}]}]}';
    assert.equal(policySha256(policy), createHash('sha256').update(canonical).digest('hex'));
    const reordered = { steps: policy.steps, onExhausted: [], ackTimeoutMs: 1_800_000, repeat: 2, id: 'default' } as Policy;
    assert.equal(policySha256(reordered), policySha256(policy));
    assert.notEqual(policySha256({ ...policy, repeat: 3 }), policySha256(policy));
  });
});
