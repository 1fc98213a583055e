import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CIRCUIT_STATE_VALUES, LABEL_NAMES, LLM_OUTCOMES, METRIC_FAMILIES } from './metric-names.js';
import { HISTOGRAM_BUCKETS } from './registry.js';

const DOC = readFileSync(fileURLToPath(new URL('../../docs/metrics.md', import.meta.url)), 'utf8');

/** Rows of the first markdown table under `heading`, header row and separator dropped. */
function table(heading: string): string[][] {
  const start = DOC.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/metrics.md has no "${heading}" section`);
  const lines = DOC.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim()));
  }
  return rows;
}

const unquote = (cell: string): string => cell.replace(/^`(.*)`$/, '$1');

describe('metric names', () => {
  it('are exactly the families of the specification and contract §10.4, three source counters with _total', () => {
    // Specification "Exported metric names", contract §8 and §10.4.
    assert.deepEqual(METRIC_FAMILIES.map((f) => f.name).sort(), [
      'mcp_server_restarts_total', 'mcp_server_circuit_state', 'mcp_server_circuit_open_total',
      'mcp_server_drain_duration_ms', 'mcp_server_rate_limited_total',
      'svc_audit_backpressure_active', 'svc_audit_backpressure_paused_total', 'svc_audit_backpressure_backlog_ms',
      'svc_audit_batch_interval_ms', 'svc_audit_batch_rows',
      'svc_audit_export_acked_total', 'svc_audit_export_failures_total', 'svc_audit_export_last_seq',
      'svc_audit_export_chain_behind_total',
      // contract §20.2: a chain that contradicts its newest checkpoint
      'svc_audit_checkpoint_contradicted',
      'svc_provider_rate_limit_waits', 'svc_provider_rate_limit_wait_ms', 'svc_tool_rate_limit_waits_total',
      // contract §14.4
      'svc_llm_requests_total', 'svc_llm_tokens_total', 'svc_llm_request_duration_seconds',
      'source_messages_received_total', 'source_messages_processed_total', 'source_messages_dlq_total', 'source_inflight',
      'svc_dispatch_backlog', 'svc_channel_messages_total', 'svc_dispatch_latency_seconds', 'svc_webhook_rejected_total',
      // issue 26: the daemon watched by its own metrics
      'svc_build_info', 'svc_ready',
      // contract §17.11
      'svc_pages_open', 'svc_page_ack_seconds', 'svc_page_escalations_total', 'svc_pages_exhausted_total', 'svc_page_timer_lag_seconds',
      'svc_heartbeat_age_seconds', 'svc_events_suppressed_total',
      // issue 33: an unreadable page or outbox row is set aside, and counted
      'svc_page_rows_quarantined_total',
      // contract §21.3
      'svc_pushover_receipts_watched', 'svc_pushover_receipt_requests_total',
    ].sort());
  });

  it('name counters with _total except svc_provider_rate_limit_waits, and nothing else with _total', () => {
    for (const f of METRIC_FAMILIES) {
      const exempt = f.name === 'svc_provider_rate_limit_waits';
      assert.equal(f.name.endsWith('_total'), f.type === 'counter' && !exempt, f.name);
    }
  });

  it('use only the label names of the vocabulary, each at most once per family', () => {
    for (const f of METRIC_FAMILIES) {
      assert.equal(new Set(f.labels).size, f.labels.length, f.name);
      for (const l of f.labels) assert.ok((LABEL_NAMES as readonly string[]).includes(l), `${f.name}: ${l}`);
    }
  });

  it('match the families table of docs/metrics.md', () => {
    const rows = table('## Families');
    assert.deepEqual(rows.map((r) => r.length), METRIC_FAMILIES.map(() => 5));
    assert.deepEqual(
      rows.map(([name, type, labels, unit, meaning]) => ({
        name: unquote(name ?? ''), type, unit, help: meaning,
        labels: labels === '—' ? [] : (labels ?? '').split(',').map((l) => unquote(l.trim())),
      })),
      METRIC_FAMILIES.map((f) => ({ name: f.name, type: f.type, unit: f.unit, help: f.help, labels: [...f.labels] })),
    );
  });

  it('match the svc_llm_requests_total outcomes table of docs/metrics.md', () => {
    assert.deepEqual(table('### `svc_llm_requests_total` outcomes').map(([outcome]) => unquote(outcome ?? '')), [...LLM_OUTCOMES]);
  });

  it('match the circuit-state encoding and the histogram buckets in docs/metrics.md', () => {
    assert.deepEqual(
      table('### `mcp_server_circuit_state` encoding').map(([value, state]) => [Number(value), (state ?? '').split(':')[0]]),
      Object.entries(CIRCUIT_STATE_VALUES).map(([state, value]) => [value, state]),
    );
    assert.deepEqual(
      table('## Histogram buckets').map(([name, bounds]) => [unquote(name ?? ''), (bounds ?? '').replace(/ (ms|rows|s)$/, '').split(', ').map(Number)]),
      Object.entries(HISTOGRAM_BUCKETS).map(([name, bounds]) => [name, [...bounds]]),
    );
  });
});
