import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { factLines, messageFacts, pageAlertsOf } from './message-facts.js';

const alert = (name: string, instance: string, extra: Record<string, unknown> = {}) =>
  ({ status: 'firing', labels: { alertname: name, instance }, ...extra });

describe('message facts', () => {
  it('lists each alert of a group with its own links, the unlisted counted, Alertmanager last', () => {
    const facts = messageFacts({ version: '4', status: 'firing', externalURL: 'http://am:9093', groupLabels: { alertname: 'HighLatency' },
      commonAnnotations: { runbook_url: 'https://rb/latency' },
      alerts: [alert('HighLatency', 'api-1', { generatorURL: 'http://prom/1' }), alert('HighLatency', 'api-2'),
        alert('HighLatency', 'api-3'), alert('HighLatency', 'api-4'), alert('HighLatency', 'api-5'), alert('HighLatency', 'api-6'),
        { status: 'resolved', labels: { alertname: 'HighLatency', instance: 'api-0' } }] });
    assert.ok(facts);
    assert.equal(facts.title, 'HighLatency (6 alerts)');
    assert.deepEqual(factLines(facts), [
      '- HighLatency on api-1', '  Runbook: https://rb/latency', '  Source: http://prom/1',
      '- HighLatency on api-2', '  Runbook: https://rb/latency',
      '- HighLatency on api-3', '  Runbook: https://rb/latency',
      '- HighLatency on api-4', '  Runbook: https://rb/latency',
      '- HighLatency on api-5', '  Runbook: https://rb/latency',
      '… and 1 more',
      'Alertmanager: http://am:9093',
    ]);
    assert.equal(facts.others, 1);
  });

  it('flattens templated values and has nothing to vouch for outside Alertmanager payloads', () => {
    const facts = messageFacts({ version: '4', status: 'firing',
      alerts: [alert('DiskFull', 'db-1', { annotations: { runbook_url: ' https://rb/disk\n  ?x=1 ' } })] });
    assert.ok(facts);
    assert.deepEqual(factLines(facts), ['Runbook: https://rb/disk ?x=1']);
    assert.equal(messageFacts({ text: 'not an alert' }), null);
  });

  it('keeps for a page each alert\'s summary (else description, one line, at most 300 characters), instance and links (§24.1)', () => {
    const long = `Checkout 5xx ratio ${'x'.repeat(400)}`;
    const facts = messageFacts({ version: '4', status: 'firing', externalURL: 'http://am:9093',
      alerts: [alert('CheckoutErrors', 'api-1', { annotations: { summary: 'Checkout 5xx\n ratio 12%', runbook_url: 'https://rb/c' }, generatorURL: 'http://prom/1' }),
        alert('CheckoutErrors', 'api-2', { annotations: { summary: '  ', description: long } }), alert('CheckoutErrors', 'api-3')] });
    assert.ok(facts);
    const kept = pageAlertsOf(facts);
    assert.deepEqual(kept.alerts[0], { name: 'CheckoutErrors on api-1', summary: 'Checkout 5xx ratio 12%', instance: 'api-1', runbookUrl: 'https://rb/c',
      sourceUrl: 'http://prom/1' });
    assert.equal(kept.alerts[1]?.summary, `${long.slice(0, 299)}…`);
    assert.equal([...(kept.alerts[1]?.summary ?? '')].length, 300);
    assert.deepEqual(kept.alerts[2], { name: 'CheckoutErrors on api-3', instance: 'api-3' });
    assert.deepEqual([kept.more, kept.alertmanagerUrl], [0, 'http://am:9093']);
  });
});
