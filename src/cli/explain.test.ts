import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeRow } from './explain.js';

describe('svc explain rows', () => {
  it('tells a raised severity in words', () => {
    assert.equal(describeRow('triage.severity-raised', 'agent:a', { provider: 'anthropic', from: 'P3', to: 'P1', floor: 'rules' }),
      'model anthropic said P3; raised to P1 by llm.severityFloor (rules)');
  });
});
