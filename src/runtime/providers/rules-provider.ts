/**
 * The built-in `rules` provider (contract §2): offline and deterministic. Severity labels map to
 * P1/P2/P3 and the message is built from labels and annotations only — no clock, no network.
 */
import type { Severity } from '../channels/channel.js';
import type { AlertmanagerAlert, AlertmanagerPayload } from './alertmanager.js';
import { parseAlertmanagerPayload } from './alertmanager.js';
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
const RANK: Record<Severity, number> = { P1: 1, P2: 2, P3: 3 };

/** Alerts described one by one in the text; the rest are counted. */
const MAX_LISTED_ALERTS = 5;
/** Caps keep a message readable and far below chat limits (Slack: 40,000 characters). */
const MAX_TITLE_CHARS = 200;
const MAX_ANNOTATION_CHARS = 400;

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
 * The alerts that count are those in the group's status (a `firing` group may also carry alerts that
 * have just resolved; those must not page at their old severity). Severity is `commonLabels.severity`
 * when the group has one (contract §12.3), else the highest priority among those alerts. A resolved
 * group keeps that severity, and its text starts with `[RESOLVED]`.
 */
export function triageAlertmanager(body: unknown): TriageResult {
  const parsed = parseAlertmanagerPayload(body);
  if (!parsed.ok) return { ok: false, retryable: false, reason: 'invalid-payload', error: parsed.error };
  const payload = parsed.payload;
  const inStatus = payload.alerts.filter((a) => a.status === payload.status);
  const focus = inStatus.length > 0 ? inStatus : payload.alerts;
  const others = payload.alerts.length - focus.length;

  let severity: Severity = 'P3';
  if (payload.commonLabels.severity !== undefined) {
    severity = severityFromLabel(payload.commonLabels.severity);
  } else {
    for (const alert of focus) {
      const s = severityFromLabel(alert.labels.severity);
      if (RANK[s] < RANK[severity]) severity = s;
    }
  }

  const title = titleOf(payload, focus);
  const lines = [payload.status === 'firing' ? `[${severity}] FIRING: ${title}` : `[RESOLVED] [${severity}] ${title}`];
  for (const alert of focus.slice(0, MAX_LISTED_ALERTS)) lines.push(...alertLines(payload, alert));
  if (focus.length > MAX_LISTED_ALERTS) lines.push(`… and ${focus.length - MAX_LISTED_ALERTS} more`);
  if (others > 0) lines.push(`(${others} other alert${others === 1 ? '' : 's'} in this group ${payload.status === 'firing' ? 'resolved' : 'still firing'})`);
  if (payload.truncatedAlerts !== undefined && payload.truncatedAlerts > 0) {
    lines.push(`(${payload.truncatedAlerts} more alert${payload.truncatedAlerts === 1 ? '' : 's'} truncated by Alertmanager)`);
  }
  if (payload.externalURL) lines.push(`Alertmanager: ${oneLine(payload.externalURL, MAX_ANNOTATION_CHARS)}`);
  if (focus.length === 0) lines.push('(no alerts in this group)');

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

/** `HighLatency on api-1` for one alert, `HighLatency (3 alerts)` for several. */
function titleOf(payload: AlertmanagerPayload, alerts: AlertmanagerAlert[]): string {
  if (alerts.length === 1 && alerts[0]) return oneLine(alertName(payload, alerts[0]), MAX_TITLE_CHARS);
  const names = [...new Set(alerts.map((a) => a.labels.alertname).filter((n): n is string => !!n))];
  const common = payload.groupLabels.alertname ?? payload.commonLabels.alertname;
  let name: string;
  if (common) name = common;
  else if (names.length === 0) name = 'Alert';
  else if (names.length <= 3) name = names.join(', ');
  else name = `${names.slice(0, 3).join(', ')}, …`;
  return oneLine(`${name} (${alerts.length} alerts)`, MAX_TITLE_CHARS);
}

/** `alertname on <instance | job | service>`, or just the name. */
function alertName(payload: AlertmanagerPayload, alert: AlertmanagerAlert): string {
  const name = alert.labels.alertname ?? payload.commonLabels.alertname ?? 'Alert';
  const where = alert.labels.instance ?? alert.labels.job ?? alert.labels.service;
  return where ? `${name} on ${where}` : name;
}

function alertLines(payload: AlertmanagerPayload, alert: AlertmanagerAlert): string[] {
  const annotations = { ...payload.commonAnnotations, ...alert.annotations };
  const head = `- ${oneLine(alertName(payload, alert), MAX_TITLE_CHARS)}`;
  const summary = annotations.summary ? oneLine(annotations.summary, MAX_ANNOTATION_CHARS) : undefined;
  const description = annotations.description ? oneLine(annotations.description, MAX_ANNOTATION_CHARS) : undefined;
  const lines = [summary ? `${head}: ${summary}` : head];
  if (description && description !== summary) lines.push(`  ${description}`);
  if (annotations.runbook_url) lines.push(`  Runbook: ${oneLine(annotations.runbook_url, MAX_ANNOTATION_CHARS)}`);
  if (alert.generatorURL) lines.push(`  Source: ${oneLine(alert.generatorURL, MAX_ANNOTATION_CHARS)}`);
  return lines;
}

/** Label and annotation values may hold newlines and runs of blanks (templated descriptions). */
function oneLine(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
