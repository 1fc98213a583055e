import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decisionOf, submitTriageTool, validateSubmission } from './submit-triage.js';

describe('submit_triage', () => {
  it('offers the JSON Schema of its zod schema: three severities, a summary, optional details, nothing else', () => {
    assert.deepEqual(submitTriageTool.inputSchema.required, ['severity', 'summary']);
    assert.equal(submitTriageTool.inputSchema.additionalProperties, false);
    assert.deepEqual(Object.keys(submitTriageTool.inputSchema.properties as object), ['severity', 'summary', 'details']);
  });

  it('accepts valid arguments and explains invalid ones without quoting values', () => {
    assert.deepEqual(validateSubmission({ severity: 'P3', summary: '  disk 80%  ' }), { ok: true, submission: { severity: 'P3', summary: 'disk 80%' } });
    const bad = validateSubmission({ severity: 'SEV1', summary: 42, recipient: 'mallory@evil.example', colour: 'red', details: 'x'.repeat(5000) });
    assert.equal(bad.ok, false);
    const error = bad.ok ? '' : bad.error;
    assert.match(error, /severity: must be one of "P1", "P2", "P3"/);
    assert.match(error, /summary: expected string/);
    assert.match(error, /details: at most 4000 characters/);
    assert.match(error, /unknown key "recipient": the recipient is fixed by configuration, remove it; unknown key "colour"/);
    assert.doesNotMatch(error, /mallory|SEV1|red"/);
    assert.equal(validateSubmission('P1').ok, false);
  });

  it('takes status and alert count from the payload, never from the model', () => {
    const resolved = { version: '4', status: 'resolved', alerts: [{ status: 'resolved', labels: {} }, { status: 'resolved', labels: {} }] };
    assert.deepEqual(decisionOf({ severity: 'P2', summary: 'Latency\n back  to normal', details: ' all clear \n' }, resolved, 'openai:m'), {
      notify: true, severity: 'P2', status: 'resolved', title: 'Latency back to normal', text: '[P2] RESOLVED: Latency back to normal\nall clear',
      alertCount: 2, triagedBy: 'openai:m' });
    assert.deepEqual(decisionOf({ severity: 'P1', summary: 's' }, { anything: true }, 'anthropic:m'), {
      notify: true, severity: 'P1', status: 'firing', title: 's', text: '[P1] FIRING: s', alertCount: 1, triagedBy: 'anthropic:m' });
  });
});
