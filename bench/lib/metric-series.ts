/**
 * The series of bench/metrics-scrape.ts, built twice: through createMetrics over live SourceStats
 * (what the daemon serves), and as a bare prom-client registry holding the same families and series
 * set directly. 100 agents × 10 sources, 10 tools per agent, 10 MCP servers, 2 exporters.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { packageVersion } from '../../src/core/version.js';
import { METRIC_FAMILIES } from '../../src/metrics/metric-names.js';
import type { MetricName } from '../../src/metrics/metric-names.js';
import type { Metrics } from '../../src/metrics/registry.js';
import { createMetrics, HISTOGRAM_BUCKETS } from '../../src/metrics/registry.js';
import { createSourceStats } from '../../src/metrics/source-stats.js';

export function buildSeries(): { metrics: Metrics; bare: Registry } {
  const AGENTS = 100;
  const SOURCES = 10;
  const TOOLS = 10;

  const agents = Array.from({ length: AGENTS }, (_, a) => ({
    id: `agent-${a}`,
    sources: Array.from({ length: SOURCES }, (_, s) => `source-${s}`),
    tools: Array.from({ length: TOOLS }, (_, t) => `tool_${t}`),
  }));
  const mcpServers = Array.from({ length: 10 }, (_, i) => `mcp-${i}`);
  const exporters = ['splunk', 'elastic'];

  // The measured side: live SourceStats with non-trivial numbers.
  const stats = createSourceStats();
  let n = 0;
  for (const a of agents) {
    for (const source of a.sources) {
      const c = stats.get(a.id, source);
      n += 1;
      c.received = n * 7;
      c.processed = n * 5;
      c.dlq = n % 3;
      c.inflight = n % 4;
    }
  }
  const metrics = createMetrics({ stats, agents, mcpServers, exporters });
  for (const a of agents) for (const tool of a.tools) metrics.rateLimit.toolWaits.inc({ agent: a.id, tool }, 1);

  // The baseline: same families, same series, values set once; no collect callbacks.
  const bare = new Registry();
  const family = new Map<MetricName, Counter | Gauge | Histogram>();
  for (const f of METRIC_FAMILIES) {
    const config = { name: f.name, help: f.help, labelNames: [...f.labels], registers: [bare] };
    family.set(f.name, f.type === 'counter' ? new Counter(config) : f.type === 'gauge' ? new Gauge(config)
      : new Histogram({ ...config, buckets: [...HISTOGRAM_BUCKETS[f.name]] }));
  }
  const counter = (name: MetricName): Counter => family.get(name) as Counter;
  const gauge = (name: MetricName): Gauge => family.get(name) as Gauge;
  const histogram = (name: MetricName): Histogram => family.get(name) as Histogram;
  // The series createMetrics sets up at startup, in its order (zero series for every configured label value).
  gauge('svc_build_info').set({ version: packageVersion(), node: process.versions.node }, 1);
  for (const server_id of mcpServers) {
    counter('mcp_server_restarts_total').inc({ server_id }, 0);
    gauge('mcp_server_circuit_state').set({ server_id }, 0);
    counter('mcp_server_circuit_open_total').inc({ server_id }, 0);
    histogram('mcp_server_drain_duration_ms').zero({ server_id });
    counter('mcp_server_rate_limited_total').inc({ server_id }, 0);
  }
  for (const exporter of exporters) {
    counter('svc_audit_export_acked_total').inc({ exporter }, 0);
    counter('svc_audit_export_failures_total').inc({ exporter }, 0);
    gauge('svc_audit_export_last_seq').set({ exporter }, 0);
    counter('svc_audit_export_chain_behind_total').inc({ exporter }, 0);
  }
  for (const a of agents) {
    counter('svc_provider_rate_limit_waits').inc({ agent: a.id }, 0);
    histogram('svc_provider_rate_limit_wait_ms').zero({ agent: a.id });
    gauge('svc_dispatch_backlog').set({ agent: a.id }, 0);
    histogram('svc_dispatch_latency_seconds').zero({ agent: a.id });
    for (const state of ['triggered', 'acknowledged']) gauge('svc_pages_open').set({ agent: a.id, state }, 0);
    histogram('svc_page_ack_seconds').zero({ agent: a.id });
    counter('svc_pages_exhausted_total').inc({ agent: a.id }, 0);
    counter('svc_events_suppressed_total').inc({ agent: a.id }, 0);
  }
  for (const a of agents) for (const tool of a.tools) counter('svc_tool_rate_limit_waits_total').inc({ agent: a.id, tool }, 1);
  for (const a of agents) {
    for (const source of a.sources) {
      const c = stats.get(a.id, source);
      counter('source_messages_received_total').inc({ agent: a.id, source }, c.received);
      counter('source_messages_processed_total').inc({ agent: a.id, source }, c.processed);
      counter('source_messages_dlq_total').inc({ agent: a.id, source, kind: 'dispatch' }, c.dlq);
      gauge('source_inflight').set({ agent: a.id, source }, c.inflight);
    }
  }

  return { metrics, bare };
}
