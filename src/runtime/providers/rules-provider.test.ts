import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TriageEvent } from './provider.js';
import type { TriageDecision, TriageResult } from './provider.js';
import { createRulesProvider, severityFromLabel, triageAlertmanager } from './rules-provider.js';

/** An Alertmanager v4 body as Alertmanager 0.27 sends it (plus an unknown key it may add later). */
function firingBody(overrides: { severity?: string | null; alerts?: unknown[] } = {}): Record<string, unknown> {
  const labels: Record<string, string> = {
    alertname: 'HighLatency',
    instance: 'api-1',
    job: 'api',
  };
  if (overrides.severity !== null) labels.severity = overrides.severity ?? 'critical';
  return {
    receiver: 'svc-oncall',
    status: 'firing',
    alerts: overrides.alerts ?? [
      {
        status: 'firing',
        labels,
        annotations: {
          summary: 'p99 latency above 2s for 10 minutes',
          description: 'p99 is 3.4s (threshold 2s)\non api-1',
          runbook_url: 'https://runbooks.example.com/api/high-latency',
        },
        startsAt: '2026-11-21T03:12:00.000Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=latency_p99+%3E+2&g0.tab=1',
        fingerprint: 'c3a1f0e29b7d4e55',
      },
    ],
    groupLabels: { alertname: 'HighLatency' },
    commonLabels: labels,
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example.com:9093',
    version: '4',
    groupKey: '{}:{alertname="HighLatency"}',
    truncatedAlerts: 0,
    someFutureField: { added: 'by a newer Alertmanager' },
  };
}

function alert(name: string, instance: string, severity: string | undefined, status = 'firing'): Record<string, unknown> {
  const labels: Record<string, string> = { alertname: name, instance };
  if (severity !== undefined) labels.severity = severity;
  return { status, labels, annotations: { summary: `${name} on ${instance}` }, startsAt: '2026-11-21T03:12:00Z',
    endsAt: '0001-01-01T00:00:00Z', generatorURL: `http://prom:9090/graph?i=${instance}`, fingerprint: instance };
}

function decision(result: TriageResult): TriageDecision {
  if (!result.ok) assert.fail(`expected a decision, got ${result.reason}: ${result.error}`);
  return result.decision;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

describe('rules provider: severity', () => {
  for (const [label, expected] of [
    ['critical', 'P1'], ['page', 'P1'], ['P1', 'P1'], ['emergency', 'P1'], ['FATAL', 'P1'],
    ['error', 'P2'], ['high', 'P2'], ['major', 'P2'], ['warning', 'P2'], [' p2 ', 'P2'],
    ['info', 'P3'], ['low', 'P3'], ['none', 'P3'], ['', 'P3'],
  ] as const) {
    it(`maps "${label}" to ${expected}`, () => assert.equal(severityFromLabel(label), expected));
  }
  it('maps a missing label to P3', () => assert.equal(severityFromLabel(undefined), 'P3'));

  it('critical firing alert → P1 with title and first line', () => {
    const d = decision(triageAlertmanager(firingBody()));
    assert.equal(d.severity, 'P1');
    assert.equal(d.status, 'firing');
    assert.equal(d.notify, true);
    assert.equal(d.alertCount, 1);
    assert.equal(d.title, 'HighLatency on api-1');
    assert.equal(firstLine(d.text), '[P1] FIRING: HighLatency on api-1');
  });

  it('warning → P2, info → P3, missing → P3', () => {
    assert.equal(firstLine(decision(triageAlertmanager(firingBody({ severity: 'warning' }))).text),
      '[P2] FIRING: HighLatency on api-1');
    assert.equal(firstLine(decision(triageAlertmanager(firingBody({ severity: 'info' }))).text),
      '[P3] FIRING: HighLatency on api-1');
    const missing = decision(triageAlertmanager(firingBody({ severity: null })));
    assert.equal(missing.severity, 'P3');
    assert.equal(firstLine(missing.text), '[P3] FIRING: HighLatency on api-1');
  });

  it('falls back to commonLabels.severity when the alert has none', () => {
    const body = firingBody({ alerts: [alert('DiskFull', 'db-1', undefined)] });
    body.commonLabels = { severity: 'critical' };
    body.groupLabels = {};
    assert.equal(decision(triageAlertmanager(body)).severity, 'P1');
  });
});

describe('rules provider: text', () => {
  it('carries summary, description, runbook, generator and external URLs', () => {
    const d = decision(triageAlertmanager(firingBody()));
    assert.deepEqual(d.text.split('\n'), [
      '[P1] FIRING: HighLatency on api-1',
      '- HighLatency on api-1: p99 latency above 2s for 10 minutes',
      '  p99 is 3.4s (threshold 2s) on api-1',
      '  Runbook: https://runbooks.example.com/api/high-latency',
      '  Source: http://prometheus.example.com:9090/graph?g0.expr=latency_p99+%3E+2&g0.tab=1',
      'Alertmanager: http://alertmanager.example.com:9093',
    ]);
  });

  it('resolved keeps the severity and starts with [RESOLVED]', () => {
    const body = firingBody();
    body.status = 'resolved';
    (body.alerts as Array<Record<string, unknown>>)[0]!.status = 'resolved';
    const d = decision(triageAlertmanager(body));
    assert.equal(d.severity, 'P1');
    assert.equal(d.status, 'resolved');
    assert.equal(d.notify, true);
    assert.equal(firstLine(d.text), '[RESOLVED] [P1] HighLatency on api-1');
  });

  it('several alerts: counted title, highest severity, at most 5 listed', () => {
    const alerts = ['api-1', 'api-2', 'api-3', 'api-4', 'api-5', 'api-6', 'api-7']
      .map((i, n) => alert('HighLatency', i, n === 3 ? 'critical' : 'warning'));
    const body = firingBody({ alerts });
    body.commonLabels = { alertname: 'HighLatency' };
    const d = decision(triageAlertmanager(body));
    assert.equal(d.title, 'HighLatency (7 alerts)');
    assert.equal(d.severity, 'P1');
    assert.equal(d.alertCount, 7);
    assert.equal(firstLine(d.text), '[P1] FIRING: HighLatency (7 alerts)');
    const listed = d.text.split('\n').filter((l) => l.startsWith('- '));
    assert.deepEqual(listed.map((l) => l.split(':')[0]), [
      '- HighLatency on api-1', '- HighLatency on api-2', '- HighLatency on api-3', '- HighLatency on api-4',
      '- HighLatency on api-5',
    ]);
    assert.match(d.text, /^… and 2 more$/m);
  });

  it('several alert names without a common one are listed in the title', () => {
    const body = firingBody({ alerts: [alert('DiskFull', 'db-1', 'warning'), alert('HighLatency', 'api-1', 'info')] });
    body.commonLabels = {};
    body.groupLabels = {};
    const d = decision(triageAlertmanager(body));
    assert.equal(d.title, 'DiskFull, HighLatency (2 alerts)');
    assert.equal(firstLine(d.text), '[P2] FIRING: DiskFull, HighLatency (2 alerts)');
  });

  it('a firing group ignores the severity of its already-resolved alerts', () => {
    const body = firingBody({ alerts: [alert('HighLatency', 'api-1', 'critical', 'resolved'),
      alert('HighLatency', 'api-2', 'warning')] });
    body.commonLabels = { alertname: 'HighLatency' };
    const d = decision(triageAlertmanager(body));
    assert.equal(d.severity, 'P2');
    assert.equal(d.title, 'HighLatency on api-2');
    assert.equal(d.alertCount, 2);
    assert.match(d.text, /^\(1 other alert in this group resolved\)$/m);
  });

  it('uses job or service when there is no instance', () => {
    const body = firingBody({ alerts: [{ status: 'firing', labels: { alertname: 'QueueBacklog', service: 'billing' } }] });
    body.commonLabels = {};
    assert.equal(decision(triageAlertmanager(body)).title, 'QueueBacklog on billing');
  });

  it('an empty alert list does not notify', () => {
    const d = decision(triageAlertmanager(firingBody({ alerts: [] })));
    assert.equal(d.notify, false);
    assert.equal(d.alertCount, 0);
  });

  it('is deterministic', () => {
    assert.deepEqual(triageAlertmanager(firingBody()), triageAlertmanager(firingBody()));
  });
});

describe('rules provider: invalid payloads', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a string', 'hello', /^payload: expected a JSON object, got string$/],
    ['null', null, /^payload: expected a JSON object, got null$/],
    ['an array', [], /^payload: expected a JSON object, got an array$/],
    ['missing alerts', (() => { const b = firingBody(); delete b.alerts; return b; })(), /^alerts: /],
    ['wrong version', { ...firingBody(), version: '3' }, /^version: must be "4"/],
    ['missing version', (() => { const b = firingBody(); delete b.version; return b; })(), /^version: /],
    ['bad status', { ...firingBody(), status: 'pending' }, /^status: must be "firing" or "resolved"$/],
    ['alerts not an array', { ...firingBody(), alerts: {} }, /^alerts: /],
    ['a non-string label', firingBody({ alerts: [{ status: 'firing', labels: { severity: 1 } }] }), /^alerts\[0\]\.labels\.severity: /],
    ['an alert without labels', firingBody({ alerts: [{ status: 'firing' }] }), /^alerts\[0\]\.labels: /],
  ];
  for (const [name, payload, error] of cases) {
    it(`${name} → invalid-payload naming the field`, () => {
      const result = triageAlertmanager(payload);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.equal(result.reason, 'invalid-payload');
      assert.equal(result.retryable, false);
      assert.match(result.error, error);
    });
  }
});

describe('rules provider: Provider contract', () => {
  it('triages event.payload', async () => {
    const provider = createRulesProvider();
    assert.equal(provider.name, 'rules');
    const event: TriageEvent = { id: 'evt-1', agentId: 'oncall', sourceId: 'alertmanager', fingerprint: 'c3a1f0e29b7d4e55',
      payload: firingBody() };
    const result = await provider.triage(event, new AbortController().signal);
    assert.equal(decision(result).title, 'HighLatency on api-1');
  });
});

describe('rules provider: lookup tool', () => {
  const event = (payload: unknown): TriageEvent => ({ id: 'evt-2', agentId: 'oncall', sourceId: 'alertmanager', fingerprint: null, payload });
  const signal = new AbortController().signal;

  it('asks the tool about the alert group and quotes its answer', async () => {
    const asked: unknown[] = [];
    const provider = createRulesProvider({ lookup: (query, eventId) => {
      asked.push({ query, eventId });
      return Promise.resolve({ ok: true, text: 'runbook: restart api\n' });
    } });
    const d = decision(await provider.triage(event(firingBody()), signal));
    assert.equal(asked.length, 1);
    const [{ query, eventId }] = asked as [{ query: { alertname: string; status: string; severity: string }; eventId: string }];
    assert.equal(eventId, 'evt-2');
    assert.equal(query.status, 'firing');
    assert.equal(query.severity, d.severity);
    assert.ok(d.text.endsWith('\nLookup: runbook: restart api'), d.text);
  });

  it('still pages when the lookup fails, saying why', async () => {
    const provider = createRulesProvider({ lookup: () => Promise.resolve({ ok: false, error: 'runbooks/lookup: circuit-open' }) });
    const d = decision(await provider.triage(event(firingBody()), signal));
    assert.equal(d.notify, true);
    assert.match(d.text, /\n\(lookup unavailable: runbooks\/lookup: circuit-open\)$/);
  });

  it('does not call the tool for an invalid payload', async () => {
    let calls = 0;
    const provider = createRulesProvider({ lookup: () => { calls += 1; return Promise.resolve({ ok: true, text: 'x' }); } });
    const result = await provider.triage(event({ nope: true }), signal);
    assert.equal(result.ok, false);
    assert.equal(calls, 0);
  });
});
