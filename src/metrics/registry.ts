/**
 * The metrics registry (contract §8): every family of metric-names.ts on an explicit prom-client
 * Registry (never the global one), present from startup with HELP and TYPE and a zero series for each
 * configured agent, source, MCP server and exporter. With `processMetrics`, prom-client's process and
 * Node.js collectors join it under PROCESS_METRIC_PREFIX (they read /proc at each scrape, no timer).
 *
 * The four source families are not updated by the runtime: they read the live SourceStats at every
 * scrape, so what is exposed is exactly what /status reports. The other families belong to
 * subsystems (MCP supervision, audit batching and export, rate limits) that update them through the
 * typed handles returned here; until those exist they stay at zero.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { packageVersion } from '../core/version.js';
import type { PrometheusContentType } from 'prom-client';
import type { SourceCounters, SourceStats } from './source-stats.js';
import type { FamilyNamesOf, LabelsOf, MetricFamily, MetricName, SourceDlqKind } from './metric-names.js';
import { CHANNEL_OUTCOMES, LLM_TOKEN_DIRECTIONS, METRIC_FAMILIES, PROCESS_METRIC_FAMILIES, PROCESS_METRIC_PREFIX,
  PROCESS_METRICS_LEFT_OUT, QUARANTINED_ROW_KINDS, RECEIPT_REQUEST_KINDS, RECEIPT_REQUEST_OUTCOMES } from './metric-names.js';

export interface MetricsDeps {
  stats: SourceStats;
  /**
   * Configured agents and the ids of their sources and channels: one zero series per agent, agent×source, agent×channel;
   * `receiptChannels`, those whose messages carry receipts (Pushover): agent×channel on the receipt request family.
   */
  agents: ReadonlyArray<{ id: string; sources: readonly string[]; channels?: readonly string[]; receiptChannels?: readonly string[] }>;
  /** Configured MCP server ids: one series per server on the mcp_server_* families. */
  mcpServers?: readonly string[];
  /** Configured SIEM exporter ids: one series per exporter on the svc_audit_export_* families. */
  exporters?: readonly string[];
  /** prom-client's process and Node.js collectors (the daemon: yes; unit tests that compare expositions: no). */
  processMetrics?: boolean;
}

export interface DaemonMetrics {
  /** What svc_ready reads at each scrape; until set, the daemon is not ready (0). */
  readiness(probe: () => Promise<boolean>): void;
}

export interface McpMetrics {
  restarts: Counter<'server_id'>;
  /** Values: CIRCUIT_STATE_VALUES (0 closed, 1 half-open, 2 open). */
  circuitState: Gauge<'server_id'>;
  circuitOpen: Counter<'server_id'>;
  drainDurationMs: Histogram<'server_id'>;
  rateLimited: Counter<'server_id'>;
}

export interface AuditMetrics {
  backpressureActive: Gauge<never>;
  backpressurePaused: Counter<never>;
  backpressureBacklogMs: Gauge<never>;
  batchIntervalMs: Gauge<never>;
  batchRows: Histogram<never>;
  exportAcked: Counter<'exporter'>;
  exportFailures: Counter<'exporter'>;
  exportLastSeq: Gauge<'exporter'>;
  exportChainBehind: Counter<'exporter'>;
  checkpointContradicted: Gauge<never>;
}

export interface RateLimitMetrics {
  providerWaits: Counter<'agent'>;
  providerWaitMs: Histogram<'agent'>;
  toolWaits: Counter<'agent' | 'tool'>;
}

export interface DispatchMetricHandles {
  backlog: Gauge<'agent'>;
  channelMessages: Counter<'agent' | 'channel' | 'outcome'>;
  latencySeconds: Histogram<'agent'>;
}

export interface IngestMetrics {
  rejected: Counter<'source' | 'reason'>;
}

export interface LlmMetrics {
  /** outcome: LLM_OUTCOMES */
  requests: Counter<'agent' | 'provider' | 'outcome'>;
  /** direction: LLM_TOKEN_DIRECTIONS */
  tokens: Counter<'agent' | 'provider' | 'direction'>;
  durationSeconds: Histogram<'agent' | 'provider'>;
  /** The zero series of an agent that runs a real provider, so dashboards see it from startup. */
  zero(agent: string, provider: string): void;
}

/** On-call pages (contract §17.11). */
export interface OncallMetrics {
  pagesOpen: Gauge<'agent' | 'state'>;
  suppressed: Counter<'agent'>;
  acknowledged(agent: string, seconds: number): void;
  escalated(agent: string, policy: string, reason: 'timeout' | 'manual'): void;
  exhausted(agent: string): void;
  timerLag(seconds: number): void;
  heartbeatAge(agent: string, heartbeat: string, seconds: number): void;
  /** A stored page or outbox row set aside because it cannot be decoded (svc_page_rows_quarantined_total). */
  quarantined(kind: (typeof QUARANTINED_ROW_KINDS)[number]): void;
}

/** Pushover receipts the leader watches (contract §21.3). */
export interface ReceiptMetrics {
  watched(count: number): void;
  request(agent: string, channel: string, kind: (typeof RECEIPT_REQUEST_KINDS)[number], outcome: (typeof RECEIPT_REQUEST_OUTCOMES)[number]): void;
}

export interface Metrics {
  /** Scrape it (`metrics()`, `getMetricsAsJSON()`); never reset it: the source families add differences. */
  registry: Registry;
  /** `text/plain; version=0.0.4; charset=utf-8` */
  contentType: PrometheusContentType;
  mcp: McpMetrics;
  audit: AuditMetrics;
  rateLimit: RateLimitMetrics;
  dispatch: DispatchMetricHandles;
  ingest: IngestMetrics;
  llm: LlmMetrics;
  daemon: DaemonMetrics;
  oncall: OncallMetrics;
  receipts: ReceiptMetrics;
}

/** Bucket upper bounds of the histograms (docs/metrics.md); a histogram missing here is a compile error. */
export const HISTOGRAM_BUCKETS: Readonly<Record<FamilyNamesOf<'histogram'>, readonly number[]>> = {
  // ms: a drain is bounded by the daemon's 10 s shutdown budget; 60 s catches stuck servers.
  mcp_server_drain_duration_ms: [10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000],
  svc_audit_batch_rows: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
  // ms: from a token-bucket hiccup to a provider's minute-long Retry-After.
  svc_provider_rate_limit_wait_ms: [10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000],
  // s: a page goes out in well under a second when all is well; minutes mean a backlog or an outage.
  svc_dispatch_latency_seconds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
  // s: a small model on a local server answers in a fraction of a second; a long answer of a large one in a minute.
  svc_llm_request_duration_seconds: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
  // s: a person answers in minutes; an hour means the page climbed its steps.
  svc_page_ack_seconds: [10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200],
  // s: the timer queue is polled every 200 ms; seconds mean the store or the loop is behind.
  svc_page_timer_lag_seconds: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
};

interface SourceSeries { key: string; agent: string; source: string; counters: SourceCounters }

const ZERO: SourceCounters = Object.freeze({ received: 0, processed: 0, dlq: 0, inflight: 0 });

function family(name: MetricName): MetricFamily {
  const found = METRIC_FAMILIES.find((f) => f.name === name);
  if (!found) throw new Error(`unknown metric family ${name}`);
  return found;
}

/** Builds the registry and its families. Does no work until scraped; owns no timers. */
export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry(); // text/plain; version=0.0.4 (prom-client's default)
  const registers = [registry];
  const mcpServers = dedupe(deps.mcpServers ?? []);
  const exporters = dedupe(deps.exporters ?? []);
  const agents = dedupe(deps.agents.map((a) => a.id));
  const configuredPairs = deps.agents.flatMap((a) => a.sources.map((source) => ({ agent: a.id, source })));

  /**
   * Configured agent×source pairs first (stable order, zero until touched), then any other live pair.
   * Rebuilt only when SourceStats gained a pair (it never loses one); a scrape otherwise reuses it.
   */
  let series: SourceSeries[] = [];
  let seriesFor = -1;
  const sourceSeries = (): SourceSeries[] => {
    if (deps.stats.size() !== seriesFor) {
      seriesFor = deps.stats.size();
      series = buildSourceSeries();
    }
    return series;
  };
  const buildSourceSeries = (): SourceSeries[] => {
    const byKey = new Map<string, SourceSeries>();
    for (const { agent, source } of configuredPairs) {
      const key = `${agent}\u0000${source}`;
      byKey.set(key, { key, agent, source, counters: ZERO });
    }
    for (const { agentId, sourceId, counters } of deps.stats.all()) {
      const key = `${agentId}\u0000${sourceId}`;
      byKey.set(key, { key, agent: agentId, source: sourceId, counters });
    }
    return [...byKey.values()];
  };

  const counter = <N extends FamilyNamesOf<'counter'>>(name: N, collect?: (c: Counter<LabelsOf<N>>) => void): Counter<LabelsOf<N>> => {
    const f = family(name);
    return new Counter<LabelsOf<N>>({ name, help: f.help, labelNames: f.labels as readonly LabelsOf<N>[], registers,
      ...(collect ? { collect(this: Counter<LabelsOf<N>>) { collect(this); } } : {}) });
  };
  const gauge = <N extends FamilyNamesOf<'gauge'>>(name: N, collect?: (g: Gauge<LabelsOf<N>>) => void): Gauge<LabelsOf<N>> => {
    const f = family(name);
    return new Gauge<LabelsOf<N>>({ name, help: f.help, labelNames: f.labels as readonly LabelsOf<N>[], registers,
      ...(collect ? { collect(this: Gauge<LabelsOf<N>>) { collect(this); } } : {}) });
  };
  const histogram = <N extends FamilyNamesOf<'histogram'>>(name: N): Histogram<LabelsOf<N>> => {
    const f = family(name);
    return new Histogram<LabelsOf<N>>({ name, help: f.help, labelNames: f.labels as readonly LabelsOf<N>[], registers,
      buckets: [...HISTOGRAM_BUCKETS[name]] });
  };
  /**
   * A family that mirrors one SourceStats field, brought up to date at each scrape. Only series whose
   * number moved are touched (a counter by the difference), so the exposed value is exactly the
   * runtime's and a counter only goes up as long as SourceStats only adds, which it does.
   */
  const mirror = (field: keyof SourceCounters, kind: SourceDlqKind | null) => {
    const last = new Map<string, number>();
    return (metric: Counter<string> | Gauge<string>): void => {
      for (const s of sourceSeries()) {
        const value = s.counters[field];
        const previous = last.get(s.key);
        if (value === previous) continue;
        last.set(s.key, value);
        const labels = kind ? { agent: s.agent, source: s.source, kind } : { agent: s.agent, source: s.source };
        if (metric instanceof Gauge) metric.set(labels, value);
        else if (previous === undefined || value > previous) metric.inc(labels, value - (previous ?? 0));
        else {
          // Cannot happen with SourceStats; should it, show a counter reset rather than a wrong number.
          metric.remove(labels);
          metric.inc(labels, value);
        }
      }
    };
  };

  // Constructed in METRIC_FAMILIES order, which is the exposition order.
  gauge('svc_build_info').set({ version: packageVersion(), node: process.versions.node }, 1);
  let readinessProbe: (() => Promise<boolean>) | null = null;
  new Gauge<never>({ name: 'svc_ready', help: family('svc_ready').help, registers,
    async collect(this: Gauge<never>) { this.set(readinessProbe === null ? 0 : (await readinessProbe().catch(() => false)) ? 1 : 0); } });
  const daemon: DaemonMetrics = { readiness: (probe) => { readinessProbe = probe; } };
  const mcp: McpMetrics = {
    restarts: counter('mcp_server_restarts_total'),
    circuitState: gauge('mcp_server_circuit_state'),
    circuitOpen: counter('mcp_server_circuit_open_total'),
    drainDurationMs: histogram('mcp_server_drain_duration_ms'),
    rateLimited: counter('mcp_server_rate_limited_total'),
  };
  const audit: AuditMetrics = {
    backpressureActive: gauge('svc_audit_backpressure_active'),
    backpressurePaused: counter('svc_audit_backpressure_paused_total'),
    backpressureBacklogMs: gauge('svc_audit_backpressure_backlog_ms'),
    batchIntervalMs: gauge('svc_audit_batch_interval_ms'),
    batchRows: histogram('svc_audit_batch_rows'),
    exportAcked: counter('svc_audit_export_acked_total'),
    exportFailures: counter('svc_audit_export_failures_total'),
    exportLastSeq: gauge('svc_audit_export_last_seq'),
    exportChainBehind: counter('svc_audit_export_chain_behind_total'),
    checkpointContradicted: gauge('svc_audit_checkpoint_contradicted'),
  };
  const rateLimit: RateLimitMetrics = {
    providerWaits: counter('svc_provider_rate_limit_waits'),
    providerWaitMs: histogram('svc_provider_rate_limit_wait_ms'),
    // Tool ids come from the MCP servers at runtime, not from configuration: series appear on first use.
    toolWaits: counter('svc_tool_rate_limit_waits_total'),
  };
  const dispatchFamilies = (): DispatchMetricHandles => ({
    backlog: gauge('svc_dispatch_backlog'),
    channelMessages: counter('svc_channel_messages_total'),
    latencySeconds: histogram('svc_dispatch_latency_seconds'),
  });
  const llmRequests = counter('svc_llm_requests_total');
  const llmTokens = counter('svc_llm_tokens_total');
  const llmDuration = histogram('svc_llm_request_duration_seconds');
  const llm: LlmMetrics = {
    // Agents, providers and outcomes: series appear with the first request, or from zero() at startup.
    requests: llmRequests,
    tokens: llmTokens,
    durationSeconds: llmDuration,
    zero(agent, provider) {
      llmRequests.inc({ agent, provider, outcome: 'ok' }, 0);
      for (const direction of LLM_TOKEN_DIRECTIONS) llmTokens.inc({ agent, provider, direction }, 0);
      llmDuration.zero({ agent, provider });
    },
  };
  counter('source_messages_received_total', mirror('received', null));
  counter('source_messages_processed_total', mirror('processed', null));
  // SourceStats.dlq counts dispatch dead letters, the only kind there is so far.
  counter('source_messages_dlq_total', mirror('dlq', 'dispatch'));
  gauge('source_inflight', mirror('inflight', null));
  const dispatch = dispatchFamilies();
  const ingest: IngestMetrics = { rejected: counter('svc_webhook_rejected_total') };
  const pagesOpen = gauge('svc_pages_open');
  const ackSeconds = histogram('svc_page_ack_seconds');
  const escalations = counter('svc_page_escalations_total');
  const exhaustedPages = counter('svc_pages_exhausted_total');
  const timerLag = histogram('svc_page_timer_lag_seconds');
  const heartbeatAge = gauge('svc_heartbeat_age_seconds');
  const suppressed = counter('svc_events_suppressed_total');
  const quarantinedRows = counter('svc_page_rows_quarantined_total');
  for (const kind of QUARANTINED_ROW_KINDS) quarantinedRows.inc({ kind }, 0);
  const oncall: OncallMetrics = {
    pagesOpen, suppressed,
    acknowledged: (agent, seconds) => ackSeconds.observe({ agent }, seconds),
    escalated: (agent, policy, reason) => escalations.inc({ agent, policy, reason }),
    exhausted: (agent) => exhaustedPages.inc({ agent }),
    timerLag: (seconds) => timerLag.observe(seconds),
    heartbeatAge: (agent, heartbeat, seconds) => heartbeatAge.set({ agent, heartbeat }, seconds),
    quarantined: (kind) => quarantinedRows.inc({ kind }),
  };
  const receiptsWatched = gauge('svc_pushover_receipts_watched');
  const receiptRequests = counter('svc_pushover_receipt_requests_total');
  const receipts: ReceiptMetrics = {
    watched: (count) => receiptsWatched.set(count),
    request: (agent, channel, kind, outcome) => receiptRequests.inc({ agent, channel, kind, outcome }),
  };

  // A zero series for every configured label value, so dashboards and alerts see them from startup.
  for (const server_id of mcpServers) {
    mcp.restarts.inc({ server_id }, 0);
    mcp.circuitState.set({ server_id }, 0);
    mcp.circuitOpen.inc({ server_id }, 0);
    mcp.drainDurationMs.zero({ server_id });
    mcp.rateLimited.inc({ server_id }, 0);
  }
  for (const exporter of exporters) {
    audit.exportAcked.inc({ exporter }, 0);
    audit.exportFailures.inc({ exporter }, 0);
    audit.exportLastSeq.set({ exporter }, 0);
    audit.exportChainBehind.inc({ exporter }, 0);
  }
  for (const agent of agents) {
    rateLimit.providerWaits.inc({ agent }, 0);
    rateLimit.providerWaitMs.zero({ agent });
    dispatch.backlog.set({ agent }, 0);
    dispatch.latencySeconds.zero({ agent });
    for (const state of ['triggered', 'acknowledged'] as const) pagesOpen.set({ agent, state }, 0);
    ackSeconds.zero({ agent });
    exhaustedPages.inc({ agent }, 0);
    oncall.suppressed.inc({ agent }, 0);
  }
  for (const { agent, channels } of deps.agents.map((a) => ({ agent: a.id, channels: a.channels ?? [] }))) {
    for (const channel of channels) for (const outcome of CHANNEL_OUTCOMES) dispatch.channelMessages.inc({ agent, channel, outcome }, 0);
  }
  for (const a of deps.agents) {
    for (const channel of a.receiptChannels ?? []) {
      for (const kind of RECEIPT_REQUEST_KINDS) for (const outcome of RECEIPT_REQUEST_OUTCOMES) receiptRequests.inc({ agent: a.id, channel, kind, outcome }, 0);
    }
  }

  const registered = registry.getMetricsAsArray().map((m) => m.name);
  if (registered.join() !== METRIC_FAMILIES.map((f) => f.name).join()) {
    throw new Error(`metric families out of step with metric-names.ts: ${registered.join(', ')}`);
  }
  if (deps.processMetrics === true) {
    collectDefaultMetrics({ register: registry, prefix: PROCESS_METRIC_PREFIX });
    for (const name of PROCESS_METRICS_LEFT_OUT) registry.removeSingleMetric(`${PROCESS_METRIC_PREFIX}${name}`);
    const added = registry.getMetricsAsArray().map((m) => m.name).slice(registered.length);
    if (added.join() !== PROCESS_METRIC_FAMILIES.map((f) => f.name).join()) {
      throw new Error(`process metric families out of step with metric-names.ts: ${added.join(', ')}`);
    }
  }
  return { registry, contentType: registry.contentType, mcp, audit, rateLimit, llm, dispatch, ingest, daemon, oncall, receipts };
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
