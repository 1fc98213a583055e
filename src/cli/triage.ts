/**
 * `svc triage [DIR] FILE [--json]` (contract §13): runs the agent's triage once on an event payload
 * and prints the message it would send (the recipient from the channel configuration), the model and
 * tool calls, and who triaged it. The agent's MCP servers start under the same supervision as in the
 * daemon; nothing is sent, nothing is stored (audit rows are collected and printed), no daemon starts.
 * Exit 0 when the triage produced a decision, 1 when it failed, 2 for usage or configuration errors.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { withDotenv } from '../config/dotenv.js';
import { loadAgentDir } from '../config/load-agent.js';
import { svcHome } from '../config/paths.js';
import type { ChannelConfig, LoadedAgent } from '../config/schema.js';
import { MCP_START_WAIT_MS } from '../config/settings.js';
import { UsageError } from '../core/errors.js';
import type { LogFields, LogLevel } from '../core/log.js';
import type { AgentLog } from '../logs/agent-log.js';
import { createMetrics } from '../metrics/registry.js';
import { createSourceStats } from '../metrics/source-stats.js';
import { collectingAuditSink } from '../runtime/audit-sink.js';
import { buildAgentProvider } from '../runtime/build-provider.js';
import { createMcpSupervisor } from '../runtime/mcp/mcp-supervisor.js';
import type { McpSupervisor } from '../runtime/mcp/mcp-types.js';
import type { TriageEvent, TriageResult } from '../runtime/providers/provider.js';
import type { ToolTrace } from '../runtime/providers/tool-loop.js';
import type { CliContext } from './context.js';
import { mcpBaseEnv } from './up.js';

export interface TriageOptions {
  json: boolean;
}

/** What `--json` prints: a stable shape. */
export interface TriageReport {
  agent: string;
  provider: string;
  model: string | null;
  ok: boolean;
  triagedBy: string | null;
  /** When ok is false. */
  reason: string | null;
  error: string | null;
  /** The decision; `notify: false` means there was nothing to tell anyone. */
  message: { notify: boolean; severity: string; status: string; title: string; text: string } | null;
  /** One per outbound channel, when there is something to send: where it would have gone. */
  deliveries: Array<{ channel: string; type: string; to: string }>;
  modelCalls: Array<Record<string, unknown>>;
  toolCalls: Array<Record<string, unknown>>;
  fallback: Record<string, unknown> | null;
  /** Every audit row the daemon would have appended, in order. */
  audit: Array<{ kind: string; actor: string; data: Record<string, unknown> }>;
  /** The agent's log records at warn and error. */
  warnings: Array<Record<string, unknown>>;
}

export async function triageCommand(args: string[], opts: TriageOptions, given: CliContext): Promise<number> {
  if (args.length < 1 || args.length > 2) throw new UsageError('svc triage: expected [DIR] FILE (the agent directory, default ., and a JSON payload)');
  const [dirArg, fileArg] = args.length === 2 ? [args[0] as string, args[1] as string] : ['.', args[0] as string];
  // The agent is loaded exactly as `svc up` loads it: DIR/.env first, the real environment winning.
  const dir = resolve(given.cwd, dirArg);
  const { env, notes } = withDotenv([dir], given.env);
  for (const note of notes) given.stderr(`svc triage: ${note}\n`);
  const ctx: CliContext = { ...given, env };
  const loaded = loadAgentDir(dir, { env, home: svcHome(env) });
  const payload = readPayload(resolve(ctx.cwd, fileArg), fileArg);
  const report = await runTriage(loaded, payload, ctx);
  ctx.stdout(opts.json ? `${JSON.stringify(report, null, 2)}\n` : humanReport(report, loaded, ctx));
  return report.ok ? 0 : 1;
}

function readPayload(path: string, shown: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`svc triage: cannot read ${shown} (${(err as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`svc triage: ${shown} is not JSON`);
  }
  // The webhook ingest accepts JSON objects only (contract §11.1): the same events, the same rule.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`svc triage: ${shown} must hold a JSON object`);
  return value as Record<string, unknown>;
}

async function runTriage(loaded: LoadedAgent, payload: Record<string, unknown>, ctx: CliContext): Promise<TriageReport> {
  const { agent } = loaded;
  const records: Array<{ level: LogLevel; event: string } & LogFields> = [];
  const log: AgentLog = { write: (level, event, fields = {}) => { records.push({ ...fields, level, event }); }, close: () => undefined };
  const metrics = createMetrics({ stats: createSourceStats(), agents: [{ id: agent.id, sources: loaded.sources.map((s) => s.id) }] });
  const servers = new Map<string, McpSupervisor>(agent.mcpServers.map((config) => [config.id, createMcpSupervisor({
    config, agentDir: loaded.dir, metrics: metrics.mcp, clock: ctx.clock, baseEnv: mcpBaseEnv(ctx.env),
    log: (level, event, fields) => { records.push({ level, event, serverId: config.id, detail: JSON.stringify(fields) }); },
  })]));
  const { sink, rows } = collectingAuditSink();
  const traces: ToolTrace[] = [];
  try {
    // As long as `svc up` waits; a server still down answers `unavailable`.
    const waited = new AbortController();
    await Promise.race([Promise.all([...servers.values()].map((s) => s.start())),
      ctx.clock.sleep(MCP_START_WAIT_MS, waited.signal).catch(() => undefined)]);
    waited.abort();
    const { provider } = buildAgentProvider(loaded, { log, audit: sink, metrics, servers, clock: ctx.clock,
      onToolCall: (trace) => traces.push(trace) });
    const event: TriageEvent = { id: `triage-${randomUUID()}`, agentId: agent.id, sourceId: loaded.sources[0]?.id ?? 'cli',
      fingerprint: null, payload };
    let result: TriageResult;
    try {
      result = await provider.triage(event, new AbortController().signal);
    } catch (err) {
      result = { ok: false, retryable: true, reason: 'triage-failed', error: err instanceof Error ? err.message : String(err) };
    }
    return reportOf(loaded, result, rows, traces, records);
  } finally {
    await Promise.all([...servers.values()].map((s) => s.close()));
  }
}

function reportOf(loaded: LoadedAgent, result: TriageResult, rows: ReturnType<typeof collectingAuditSink>['rows'],
  traces: ToolTrace[], records: Array<Record<string, unknown>>): TriageReport {
  const { agent } = loaded;
  const decision = result.ok ? result.decision : null;
  const toolRows = rows.filter((r) => r.kind === 'tool.called');
  // The loop reports its tool calls in the order it makes them, as the audit rows are appended.
  const loopCalls = toolRows.length === traces.length;
  return {
    agent: agent.id,
    provider: agent.provider,
    model: agent.model ?? null,
    ok: result.ok,
    triagedBy: decision?.triagedBy ?? null,
    reason: result.ok ? null : result.reason,
    error: result.ok ? null : result.error,
    message: decision ? { notify: decision.notify, severity: decision.severity, status: decision.status, title: decision.title, text: decision.text } : null,
    deliveries: decision?.notify ? loaded.channels.map((c) => ({ channel: c.id, type: c.type, to: recipientOf(c) })) : [],
    modelCalls: rows.filter((r) => r.kind === 'llm.called').map((r) => {
      // The provider's own words about a failed call are in the log record only (its key removed), not in the audit row.
      const logged = records.find((l) => l.event === 'llm.called' && l.step === r.data.step && l.attempt === r.data.attempt);
      return { ...withoutEventId(r.data), ...(typeof logged?.detail === 'string' ? { detail: logged.detail } : {}) };
    }),
    toolCalls: toolRows.map((r, i) => ({ ...withoutEventId(r.data), ...(loopCalls ? { step: traces[i]?.step, arguments: traces[i]?.arguments } : {}) })),
    fallback: rows.find((r) => r.kind === 'triage.fallback')?.data ?? null,
    audit: rows.map((r) => ({ kind: r.kind, actor: r.actor, data: r.data })),
    warnings: records.filter((r) => r.level === 'warn' || r.level === 'error'),
  };
}

/** Who a channel's message goes to: always the configuration's, never anything from the model (contract §14.2). */
function recipientOf(channel: ChannelConfig): string {
  switch (channel.type) {
    case 'file': return channel.to;
    case 'webhook': return channel.to;
    case 'slack': return channel.conversation ?? channel.user ?? channel.id;
    case 'email': return channel.to;
    // The room the workflow posts to, the service the integration key belongs to.
    case 'teams': return channel.id;
    case 'pagerduty': return channel.id;
    // Without their own recipient, the channel (its messages name a person's contact or fail).
    case 'twilio': return channel.to ?? channel.id;
    case 'telegram': return channel.chat ?? channel.id;
    // A channel without its own recipient sends only to people (oncall.yaml contacts).
    case 'ntfy': return channel.topic ?? `${channel.id} (people only)`;
    case 'pushover': return channel.user ?? `${channel.id} (people only)`;
  }
}

function withoutEventId(data: Record<string, unknown>): Record<string, unknown> {
  const { eventId: _eventId, ...rest } = data;
  return rest;
}

function humanReport(r: TriageReport, loaded: LoadedAgent, ctx: CliContext): string {
  const lines: string[] = [];
  const where = relative(ctx.cwd, loaded.dir) || '.';
  lines.push(`svc triage: agent ${r.agent} (${where}), provider ${r.provider}${r.model ? ` (${r.model})` : ''}; nothing is sent or stored`);
  if (r.modelCalls.length > 0) {
    const sum = (k: string): number => r.modelCalls.reduce((n, c) => n + Number(c[k] ?? 0), 0);
    lines.push(`model calls: ${r.modelCalls.length} (tokens in ${sum('inputTokens')}, out ${sum('outputTokens')})`);
    for (const c of r.modelCalls) {
      lines.push(`  step ${str(c.step)} attempt ${str(c.attempt)}: ${str(c.status)}${c.httpStatus === null ? '' : ` (HTTP ${str(c.httpStatus)})`}, `
        + `${str(c.durationMs)} ms${c.detail === undefined ? '' : `: ${str(c.detail)}`}`);
    }
  }
  if (r.toolCalls.length > 0) {
    lines.push(`tool calls: ${r.toolCalls.length}`);
    for (const c of r.toolCalls) {
      const args = c.arguments === undefined ? '' : ` ${JSON.stringify(c.arguments)}`;
      lines.push(`  ${str(c.serverId)}/${str(c.tool)}${args}: ${str(c.outcome)}, ${str(c.durationMs)} ms`);
    }
  }
  if (r.fallback) lines.push(`fallback: rules (${str(r.fallback.reason)}: ${str(r.fallback.error)})`);
  for (const w of r.warnings.filter((x) => x.event !== 'llm.called' && x.event !== 'llm.retry_wait' && x.event !== 'triage.fallback')) {
    lines.push(`warning: ${str(w.event)}${w.serverId ? ` ${str(w.serverId)}` : ''}${w.detail ? ` ${str(w.detail)}` : ''}`);
  }
  if (!r.ok || !r.message) {
    lines.push(`triage failed (${r.reason ?? 'unknown'}): ${r.error ?? ''}`);
    return `${lines.join('\n')}\n`;
  }
  lines.push(`triaged by: ${r.triagedBy ?? '?'}`);
  if (!r.message.notify) {
    lines.push('nothing to send: the event holds no alert');
    return `${lines.join('\n')}\n`;
  }
  lines.push('would send:');
  for (const d of r.deliveries) lines.push(`  to ${d.to} via ${d.channel} (${d.type})`);
  lines.push(`severity ${r.message.severity}, ${r.message.status}: ${r.message.title}`, '', r.message.text);
  return `${lines.join('\n')}\n`;
}

/** A report value as text: strings as they are, anything else as JSON. */
function str(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}
