/**
 * The closed vocabulary of exported metric families (specification "Exported metric names", contract
 * §8). Names are public interface and fixed by the specification, including the ones promtool's naming
 * lint dislikes (`_ms` units, `svc_provider_rate_limit_waits` without `_total`). docs/metrics.md carries
 * the same table; metric-names.test.ts checks that the two agree.
 */

/** Label names the families use. `kind` is `dispatch` on dispatch dead letters. */
export const LABEL_NAMES = ['server_id', 'agent', 'source', 'tool', 'kind', 'exporter', 'channel', 'outcome', 'reason', 'provider',
  'direction', 'version', 'node', 'state', 'policy', 'heartbeat'] as const;
export type LabelName = (typeof LABEL_NAMES)[number];

export const METRIC_TYPES = ['counter', 'gauge', 'histogram'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** Values of the `kind` label on source_messages_dlq_total. */
export const SOURCE_DLQ_KINDS = ['dispatch'] as const;
export type SourceDlqKind = (typeof SOURCE_DLQ_KINDS)[number];

/** Values of the `kind` label of svc_page_rows_quarantined_total. */
export const QUARANTINED_ROW_KINDS = ['page', 'notification'] as const;
/** Values of the `kind` and `outcome` labels of svc_pushover_receipt_requests_total. */
export const RECEIPT_REQUEST_KINDS = ['poll', 'cancel'] as const;
export const RECEIPT_REQUEST_OUTCOMES = ['ok', 'failed'] as const;

/** Values of the `outcome` label of svc_channel_messages_total. */
export const CHANNEL_OUTCOMES = ['delivered', 'failed'] as const;

/** Values of the `reason` label of svc_webhook_rejected_total (contract §10.4). */
export const WEBHOOK_REJECT_REASONS = ['unauthorized', 'too-large', 'bad-request', 'method', 'unknown-source', 'unavailable'] as const;
export type WebhookRejectReason = (typeof WEBHOOK_REJECT_REASONS)[number];
/**
 * Values of the `outcome` label on svc_llm_requests_total: how one HTTP request to the model ended
 * (contract §14.3). `cut-off` and `refused` are answers (HTTP 200) that end at `max_tokens` or in a
 * refusal; `aborted` is a request cut short by shutdown.
 */
export const LLM_OUTCOMES = ['ok', 'cut-off', 'refused', 'malformed', 'rate-limited', 'overloaded', 'server-error',
  'client-error', 'timeout', 'network-error', 'aborted'] as const;
export type LlmOutcome = (typeof LLM_OUTCOMES)[number];

/** Values of the `direction` label on svc_llm_tokens_total: the provider's `usage` input and output counts. */
export const LLM_TOKEN_DIRECTIONS = ['input', 'output'] as const;
export type LlmTokenDirection = (typeof LLM_TOKEN_DIRECTIONS)[number];

/** Encoding of mcp_server_circuit_state. */
export const CIRCUIT_STATE_VALUES = { closed: 0, 'half-open': 1, open: 2 } as const;
export type CircuitState = keyof typeof CIRCUIT_STATE_VALUES;

export interface MetricFamily {
  name: string;
  type: MetricType;
  labels: readonly LabelName[];
  /** Unit of the value, as written in docs/metrics.md. */
  unit: string;
  /** The HELP line: what is measured, and the unit. */
  help: string;
}

/** Every exported family, in exposition order. */
export const METRIC_FAMILIES = [
  // The daemon itself
  { name: 'svc_build_info', type: 'gauge', labels: ['version', 'node'], unit: 'info',
    help: 'Always 1: the svc version and the Node.js version of this daemon in the labels.' },
  { name: 'svc_ready', type: 'gauge', labels: [], unit: 'boolean',
    help: 'Whether /readyz answers 200 at this scrape (the store can be written, every source listens, the pager\'s loops work): 1 ready, 0 not.' },
  // MCP server supervision
  { name: 'mcp_server_restarts_total', type: 'counter', labels: ['server_id'], unit: 'restarts',
    help: 'Restarts of the MCP server process by its supervisor (count).' },
  { name: 'mcp_server_circuit_state', type: 'gauge', labels: ['server_id'], unit: 'state',
    help: 'Circuit breaker state of the MCP server: 0 closed, 1 half-open, 2 open.' },
  { name: 'mcp_server_circuit_open_total', type: 'counter', labels: ['server_id'], unit: 'transitions',
    help: 'Times the circuit breaker of the MCP server opened (count).' },
  { name: 'mcp_server_drain_duration_ms', type: 'histogram', labels: ['server_id'], unit: 'milliseconds',
    help: 'Time the MCP server took to drain its in-flight calls before a stop or restart, in milliseconds.' },
  { name: 'mcp_server_rate_limited_total', type: 'counter', labels: ['server_id'], unit: 'calls',
    help: 'Calls to the MCP server held back by its rate limit (count).' },
  // Audit back-pressure
  { name: 'svc_audit_backpressure_active', type: 'gauge', labels: [], unit: 'boolean',
    help: 'Whether audit back-pressure is pausing intake because the SIEM export backlog passed its bound: 1 active, 0 not.' },
  { name: 'svc_audit_backpressure_paused_total', type: 'counter', labels: [], unit: 'pauses',
    help: 'Times audit back-pressure paused intake (count).' },
  { name: 'svc_audit_backpressure_backlog_ms', type: 'gauge', labels: [], unit: 'milliseconds',
    help: 'Age of the oldest audit row not yet acknowledged by every SIEM exporter, in milliseconds (0 when none waits).' },
  // Audit batching
  { name: 'svc_audit_batch_interval_ms', type: 'gauge', labels: [], unit: 'milliseconds',
    help: 'Current adaptive interval between SIEM export batches, the shortest among the exporters, in milliseconds.' },
  { name: 'svc_audit_batch_rows', type: 'histogram', labels: [], unit: 'rows',
    help: 'Audit rows per SIEM export batch acknowledged by the receiver (rows).' },
  // Audit export (SIEM)
  { name: 'svc_audit_export_acked_total', type: 'counter', labels: ['exporter'], unit: 'rows',
    help: 'Audit rows the SIEM exporter delivered and the receiver acknowledged (rows).' },
  { name: 'svc_audit_export_failures_total', type: 'counter', labels: ['exporter'], unit: 'attempts',
    help: 'Failed delivery attempts of the SIEM exporter (count).' },
  { name: 'svc_audit_export_last_seq', type: 'gauge', labels: ['exporter'], unit: 'sequence number',
    help: 'Audit seq of the last row the SIEM exporter had acknowledged (0 before the first).' },
  { name: 'svc_audit_export_chain_behind_total', type: 'counter', labels: ['exporter'], unit: 'alarms',
    help: 'Times the SIEM exporter found the audit chain no longer holding rows it had sent (head behind its cursor, or sent rows changed) and sent again from where they agree (count).' },
  // Signed checkpoints (contract §20.2)
  { name: 'svc_audit_checkpoint_contradicted', type: 'gauge', labels: [], unit: 'boolean',
    help: 'Whether the audit chain contradicts the newest signed checkpoint (its tail deleted, or rewritten under it): 1 while it does, and no checkpoint is signed; 0 not.' },
  // Rate limits
  { name: 'svc_provider_rate_limit_waits', type: 'counter', labels: ['agent'], unit: 'waits',
    help: 'Provider calls of the agent that waited for the provider rate limit (count).' },
  { name: 'svc_provider_rate_limit_wait_ms', type: 'histogram', labels: ['agent'], unit: 'milliseconds',
    help: 'Time provider calls of the agent waited for the provider rate limit, in milliseconds.' },
  { name: 'svc_tool_rate_limit_waits_total', type: 'counter', labels: ['agent', 'tool'], unit: 'waits',
    help: 'Tool calls of the agent that waited for the rate limit of the tool (count).' },
  // LLM providers (contract §14.4)
  { name: 'svc_llm_requests_total', type: 'counter', labels: ['agent', 'provider', 'outcome'], unit: 'requests',
    help: 'HTTP requests of the agent to its LLM provider, by outcome (count).' },
  { name: 'svc_llm_tokens_total', type: 'counter', labels: ['agent', 'provider', 'direction'], unit: 'tokens',
    help: 'Tokens the LLM provider reported in the usage of its answers, direction input or output (tokens).' },
  { name: 'svc_llm_request_duration_seconds', type: 'histogram', labels: ['agent', 'provider'], unit: 'seconds',
    help: 'Time from sending a request to the LLM provider until its answer was read or the request failed, in seconds.' },
  // Sources
  { name: 'source_messages_received_total', type: 'counter', labels: ['agent', 'source'], unit: 'messages',
    help: 'Authenticated, well-formed deliveries the source received, accepted and duplicate (messages).' },
  { name: 'source_messages_processed_total', type: 'counter', labels: ['agent', 'source'], unit: 'messages',
    help: 'Events from the source whose outbound message went out (messages).' },
  { name: 'source_messages_dlq_total', type: 'counter', labels: ['agent', 'source', 'kind'], unit: 'messages',
    help: 'Events from the source that were dead-lettered; kind is dispatch for dispatch dead letters (messages).' },
  { name: 'source_inflight', type: 'gauge', labels: ['agent', 'source'], unit: 'messages',
    help: 'Accepted events from the source not yet processed or dead-lettered (messages).' },
  // Dispatch (contract §10.4)
  { name: 'svc_dispatch_backlog', type: 'gauge', labels: ['agent'], unit: 'events',
    help: 'Events of the agent waiting in the store or being handled: accepted plus processing (events).' },
  { name: 'svc_channel_messages_total', type: 'counter', labels: ['agent', 'channel', 'outcome'], unit: 'attempts',
    help: 'Hand-offs of messages to the channel: outcome delivered, or failed for every failed attempt (count).' },
  { name: 'svc_dispatch_latency_seconds', type: 'histogram', labels: ['agent'], unit: 'seconds',
    help: 'Time from an event being accepted to its message being delivered, for processed events, in seconds.' },
  { name: 'svc_webhook_rejected_total', type: 'counter', labels: ['source', 'reason'], unit: 'requests',
    help: 'Webhook requests refused before anything was stored, by reason; unknown sources count under source _unknown (count).' },
  // On-call pages (contract §17.11)
  { name: 'svc_pages_open', type: 'gauge', labels: ['agent', 'state'], unit: 'pages',
    help: 'Pages of the agent not resolved, by state triggered or acknowledged (pages).' },
  { name: 'svc_page_ack_seconds', type: 'histogram', labels: ['agent'], unit: 'seconds',
    help: 'Time from a page opening to its acknowledgement, in seconds.' },
  { name: 'svc_page_escalations_total', type: 'counter', labels: ['agent', 'policy', 'reason'], unit: 'escalations',
    help: 'Steps pages climbed, reason timeout (nobody acknowledged in time) or manual (svc escalate) (count).' },
  { name: 'svc_pages_exhausted_total', type: 'counter', labels: ['agent'], unit: 'pages',
    help: 'Pages that ran through every step and loop of their policy unacknowledged (count).' },
  { name: 'svc_page_timer_lag_seconds', type: 'histogram', labels: [], unit: 'seconds',
    help: 'Time from a page timer falling due to it being fired, in seconds.' },
  { name: 'svc_heartbeat_age_seconds', type: 'gauge', labels: ['agent', 'heartbeat'], unit: 'seconds',
    help: 'Time since a delivery last refreshed the heartbeat, in seconds.' },
  { name: 'svc_events_suppressed_total', type: 'counter', labels: ['agent'], unit: 'events',
    help: 'Events whose alerts all matched a live silence: audited as event.suppressed, nobody paged (count).' },
  { name: 'svc_page_rows_quarantined_total', type: 'counter', labels: ['kind'], unit: 'rows',
    help: 'Stored rows the pager set aside because they cannot be decoded, kind page or notification: audited, never retried (count).' },
  // Pushover receipts (contract §21.3), watched by the leader
  { name: 'svc_pushover_receipts_watched', type: 'gauge', labels: [], unit: 'receipts',
    help: 'Pushover emergency receipts this replica watches as the leader: asked about while their page is triggered, or to be cancelled (receipts).' },
  { name: 'svc_pushover_receipt_requests_total', type: 'counter', labels: ['agent', 'channel', 'kind', 'outcome'], unit: 'requests',
    help: 'Requests to Pushover about receipts: kind poll or cancel, outcome ok (Pushover answered) or failed (count).' },
] as const satisfies readonly MetricFamily[];

export type MetricFamilyDef = (typeof METRIC_FAMILIES)[number];
export type MetricName = MetricFamilyDef['name'];
/** Names of the families of one type, e.g. `FamilyNamesOf<'histogram'>`. */
export type FamilyNamesOf<T extends MetricType> = Extract<MetricFamilyDef, { type: T }>['name'];
/** Label names of one family (`never` for a family without labels). */
export type LabelsOf<N extends MetricName> = Extract<MetricFamilyDef, { name: N }>['labels'][number];

/**
 * The process and Node.js runtime families of prom-client's default collectors, on the daemon's own
 * registry under this prefix (`svc_process_cpu_seconds_total`, `svc_nodejs_eventloop_lag_p99_seconds`):
 * the prefix keeps them apart from another exporter's on the same host. Not the specification's
 * families; registry.test.ts checks the list against what prom-client registers.
 */
export const PROCESS_METRIC_PREFIX = 'svc_';
/** prom-client's gauges named `_total`, which promtool's lint refuses: not registered. */
export const PROCESS_METRICS_LEFT_OUT = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;
export const PROCESS_METRIC_FAMILIES = [
  { name: 'svc_process_cpu_user_seconds_total', type: 'counter', labels: [] },
  { name: 'svc_process_cpu_system_seconds_total', type: 'counter', labels: [] },
  { name: 'svc_process_cpu_seconds_total', type: 'counter', labels: [] },
  { name: 'svc_process_start_time_seconds', type: 'gauge', labels: [] },
  { name: 'svc_process_resident_memory_bytes', type: 'gauge', labels: [] },
  { name: 'svc_process_virtual_memory_bytes', type: 'gauge', labels: [] },
  { name: 'svc_process_heap_bytes', type: 'gauge', labels: [] },
  { name: 'svc_process_open_fds', type: 'gauge', labels: [] },
  { name: 'svc_process_max_fds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_min_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_max_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_mean_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_stddev_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_p50_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_p90_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_eventloop_lag_p99_seconds', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_active_resources', type: 'gauge', labels: ['type'] },
  { name: 'svc_nodejs_active_handles', type: 'gauge', labels: ['type'] },
  { name: 'svc_nodejs_active_requests', type: 'gauge', labels: ['type'] },
  { name: 'svc_nodejs_heap_size_total_bytes', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_heap_size_used_bytes', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_external_memory_bytes', type: 'gauge', labels: [] },
  { name: 'svc_nodejs_heap_space_size_total_bytes', type: 'gauge', labels: ['space'] },
  { name: 'svc_nodejs_heap_space_size_used_bytes', type: 'gauge', labels: ['space'] },
  { name: 'svc_nodejs_heap_space_size_available_bytes', type: 'gauge', labels: ['space'] },
  { name: 'svc_nodejs_version_info', type: 'gauge', labels: ['version', 'major', 'minor', 'patch'] },
  { name: 'svc_nodejs_gc_duration_seconds', type: 'histogram', labels: ['kind'] },
] as const;
