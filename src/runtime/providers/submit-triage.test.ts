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
    assert.deepEqual(decisionOf({ severity: 'P2', summary: 'Latency\n back  to normal', details: ' all clear \n' }, resolved, 'openai:m', 'P3'), {
      decision: { notify: true, severity: 'P2', status: 'resolved', title: 'Alert (2 alerts)',
        text: '[P2] RESOLVED: Alert (2 alerts)\nLatency back to normal\nall clear\n- Alert\n- Alert', alertCount: 2, triagedBy: 'openai:m' },
      raised: null });
    assert.deepEqual(decisionOf({ severity: 'P1', summary: 's' }, { anything: true }, 'anthropic:m', 'rules'), {
      decision: { notify: true, severity: 'P1', status: 'firing', title: 's', text: '[P1] FIRING: s', alertCount: 1, triagedBy: 'anthropic:m' },
      raised: null });
  });

  const page = {
    version: '4', status: 'firing', externalURL: 'http://am.example:9093', commonLabels: { severity: 'critical' },
    alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', instance: 'db-1:9100', severity: 'critical' },
      annotations: { runbook_url: 'https://runbooks.example/disk-full' }, generatorURL: 'http://prom.example:9090/graph?g0.expr=disk' }],
  };

  it('keeps the alert name, instance, runbook and source links of the event below whatever the model wrote', () => {
    const { decision } = decisionOf({ severity: 'P1', summary: 'Everything is fine, see https://evil.example', details: 'Runbook: none' },
      page, 'anthropic:m', 'rules');
    assert.equal(decision.title, 'DiskFull on db-1:9100');
    assert.equal(decision.text, [
      '[P1] FIRING: DiskFull on db-1:9100',
      'Everything is fine, see https://evil.example',
      'Runbook: none',
      'Runbook: https://runbooks.example/disk-full',
      'Source: http://prom.example:9090/graph?g0.expr=disk',
      'Alertmanager: http://am.example:9093',
    ].join('\n'));
  });

  it('raises a severity below llm.severityFloor (default: the rules\' severity) and says so', () => {
    const low = decisionOf({ severity: 'P3', summary: 'probably noise' }, page, 'openai:m', 'rules');
    assert.deepEqual(low.raised, { from: 'P3', to: 'P1', floor: 'rules' });
    assert.equal(low.decision.severity, 'P1');
    assert.equal(low.decision.text.split('\n').slice(0, 3).join('\n'),
      '[P1] FIRING: DiskFull on db-1:9100\nprobably noise\n(the model said P3; raised to P1 by llm.severityFloor)');
    // A fixed floor replaces the rules' one; P3 lets the model decide alone.
    assert.deepEqual(decisionOf({ severity: 'P3', summary: 'x' }, page, 'openai:m', 'P2').raised, { from: 'P3', to: 'P2', floor: 'P2' });
    assert.equal(decisionOf({ severity: 'P3', summary: 'x' }, page, 'openai:m', 'P3').raised, null);
    // Raising is allowed, and a payload the rules cannot read has no rules floor.
    assert.equal(decisionOf({ severity: 'P1', summary: 'x' }, { ...page, commonLabels: { severity: 'info' } }, 'openai:m', 'rules').raised, null);
    assert.equal(decisionOf({ severity: 'P3', summary: 'x' }, { custom: 'critical' }, 'openai:m', 'rules').raised, null);
  });
});
