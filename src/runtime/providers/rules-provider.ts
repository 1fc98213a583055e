/**
 * The built-in `rules` provider (contract §2): offline and deterministic. Severity labels map to
 * P1/P2/P3 and the message is built from labels and annotations only — no clock, no network.
 */
import type { Severity } from '../channels/channel.js';
import type { AlertmanagerPayload } from './alertmanager.js';
import { parseAlertmanagerPayload } from './alertmanager.js';
import type { AlertFacts } from './message-facts.js';
import { MAX_ANNOTATION_CHARS, factsOf, oneLine } from './message-facts.js';
import type { Provider, TriageEvent, TriageResult } from './provider.js';

/**
 * `severity` label (trimmed, case-insensitive) → priority:
 *
 * | label value                                   | priority |
 * |-----------------------------------------------|----------|
 * | critical, page, p1, emergency, fatal          | P1       |
 * | error, high, major, warning, p2               | P2       |
 * | anything else (info, none, low, …) or missing | P3       |
 */
const SEVERITY_TABLE: Readonly<Record<string, Severity>> = {
  critical: 'P1', page: 'P1', p1: 'P1', emergency: 'P1', fatal: 'P1',
  error: 'P2', high: 'P2', major: 'P2', warning: 'P2', p2: 'P2',
};
/** Lower is more urgent. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { P1: 1, P2: 2, P3: 3 };

export function severityFromLabel(value: string | undefined): Severity {
  if (value === undefined) return 'P3';
  return SEVERITY_TABLE[value.trim().toLowerCase()] ?? 'P3';
}

/** What the enrichment tool is asked: the alert group's name, status, priority and common labels. */
export interface LookupQuery {
  alertname: string;
  status: 'firing' | 'resolved';
  severity: Severity;
  labels: Record<string, string>;
}

/**
 * One tool call per triaged event (agent.yaml `rules.lookup`, e.g. a runbook lookup over MCP). It never
 * fails the triage: a page at 3 a.m. goes out without the runbook rather than not at all.
 */
export type RulesLookup = (query: LookupQuery, eventId: string, signal: AbortSignal) =>
  Promise<{ ok: true; text: string } | { ok: false; error: string }>;

/** The tool's answer is quoted in the message up to this many characters. */
const MAX_LOOKUP_CHARS = 1000;

export function createRulesProvider(opts: { lookup?: RulesLookup } = {}): Provider {
  const { lookup } = opts;
  return {
    name: 'rules',
    async triage(event: TriageEvent, signal: AbortSignal): Promise<TriageResult> {
      const result = triageAlertmanager(event.payload);
      if (!lookup || !result.ok || !result.decision.notify) return result;
      const payload = parseAlertmanagerPayload(event.payload);
      const common = payload.ok ? payload.payload.commonLabels : {};
      const query: LookupQuery = { alertname: common.alertname ?? result.decision.title, status: result.decision.status,
        severity: result.decision.severity, labels: { ...common } };
      const found = await lookup(query, event.id, signal);
      const line = found.ok
        ? `Lookup: ${clip(found.text.trim(), MAX_LOOKUP_CHARS)}`
        : `(lookup unavailable: ${oneLine(found.error, MAX_ANNOTATION_CHARS)})`;
      return { ok: true, decision: { ...result.decision, text: `${result.decision.text}\n${line}` } };
    },
  };
}

/** Keeps the tool's own line breaks (a runbook excerpt reads better with them), only caps the length. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The pure triage of an Alertmanager v4 body.
 *
 * The alerts that count are those in the group's status (message-facts.ts). Severity is
 * `commonLabels.severity` when the group has one (contract §12.3), else the highest priority among
 * those alerts. A resolved group keeps that severity, and its text starts with `[RESOLVED]`.
 */
export function triageAlertmanager(body: unknown): TriageResult {
  const parsed = parseAlertmanagerPayload(body);
  if (!parsed.ok) return { ok: false, retryable: false, reason: 'invalid-payload', error: parsed.error };
  const payload = parsed.payload;
  const facts = factsOf(payload);
  const severity = rulesSeverity(payload);

  const { title } = facts;
  const lines = [payload.status === 'firing' ? `[${severity}] FIRING: ${title}` : `[RESOLVED] [${severity}] ${title}`];
  for (const alert of facts.alerts) lines.push(...alertLines(alert));
  if (facts.unlisted > 0) lines.push(`… and ${facts.unlisted} more`);
  if (facts.others > 0) lines.push(`(${facts.others} other alert${facts.others === 1 ? '' : 's'} in this group ${payload.status === 'firing' ? 'resolved' : 'still firing'})`);
  if (facts.truncated > 0) {
    lines.push(`(${facts.truncated} more alert${facts.truncated === 1 ? '' : 's'} truncated by Alertmanager)`);
  }
  if (facts.alertmanagerUrl) lines.push(`Alertmanager: ${facts.alertmanagerUrl}`);
  if (facts.alerts.length === 0) lines.push('(no alerts in this group)');

  return {
    ok: true,
    decision: {
      notify: payload.alerts.length > 0,
      severity,
      status: payload.status,
      title,
      text: lines.join('\n'),
      alertCount: payload.alerts.length,
      triagedBy: 'rules',
    },
  };
}

/** The severity the rules give a group (contract §12.3); also the default `llm.severityFloor`. */
export function rulesSeverity(payload: AlertmanagerPayload): Severity {
  if (payload.commonLabels.severity !== undefined) return severityFromLabel(payload.commonLabels.severity);
  const inStatus = payload.alerts.filter((a) => a.status === payload.status);
  const focus = inStatus.length > 0 ? inStatus : payload.alerts;
  let severity: Severity = 'P3';
  for (const alert of focus) {
    const s = severityFromLabel(alert.labels.severity);
    if (SEVERITY_RANK[s] < SEVERITY_RANK[severity]) severity = s;
  }
  return severity;
}

function alertLines(alert: AlertFacts): string[] {
  const { annotations } = alert;
  const head = `- ${alert.name}`;
  const summary = annotations.summary ? oneLine(annotations.summary, MAX_ANNOTATION_CHARS) : undefined;
  const description = annotations.description ? oneLine(annotations.description, MAX_ANNOTATION_CHARS) : undefined;
  const lines = [summary ? `${head}: ${summary}` : head];
  if (description && description !== summary) lines.push(`  ${description}`);
  if (alert.runbookUrl) lines.push(`  Runbook: ${alert.runbookUrl}`);
  if (alert.sourceUrl) lines.push(`  Source: ${alert.sourceUrl}`);
  return lines;
}
