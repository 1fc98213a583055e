import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { factLines, messageFacts } from './message-facts.js';

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
});
