/**
 * What a page must say whoever triaged it: the alert's name and where it fires, its runbook and the
 * links back to the source (Prometheus' `generatorURL`, Alertmanager's `externalURL`). Taken from the
 * event alone — a model may summarise, misread or be steered by the alert's own text, but it cannot
 * drop or rewrite these. The rules provider builds its text from the same facts; a model's decision
 * carries them below its summary (submit-triage.ts), so every channel receives the same lines.
 */
import type { AlertmanagerAlert, AlertmanagerPayload } from './alertmanager.js';
import { parseAlertmanagerPayload } from './alertmanager.js';
import type { PageAlert, PageAlerts } from '../../oncall/page-alert.js';
import { MAX_SUMMARY_CHARS } from '../../oncall/page-alert.js';

/** Alerts described one by one; the rest are counted. */
export const MAX_LISTED_ALERTS = 5;
/** Caps keep a message readable and far below chat limits (Slack: 40,000 characters). */
export const MAX_TITLE_CHARS = 200;
export const MAX_ANNOTATION_CHARS = 400;

export interface AlertFacts {
  /** `HighLatency on api-1` (instance, else job, else service), or just the name. */
  name: string;
  /** the `instance` label */
  instance?: string;
  /** annotation `runbook_url` */
  runbookUrl?: string;
  /** the alert's `generatorURL` */
  sourceUrl?: string;
  /** the merged annotations (the rules provider quotes summary and description) */
  annotations: Record<string, string>;
}

export interface MessageFacts {
  status: 'firing' | 'resolved';
  /** One line, e.g. `HighLatency on api-1` or `HighLatency (3 alerts)`. */
  title: string;
  /** The alerts in the group's status (all of them when none is), at most MAX_LISTED_ALERTS. */
  alerts: AlertFacts[];
  /** How many alerts in the group's status are not listed. */
  unlisted: number;
  /** Alerts of the group in the other status. */
  others: number;
  /** Alerts Alertmanager itself left out (`truncatedAlerts`). */
  truncated: number;
  alertCount: number;
  /** Alertmanager's `externalURL` */
  alertmanagerUrl?: string;
}

/** The facts of an Alertmanager v4 payload; null for any other payload (nothing to vouch for). */
export function messageFacts(body: unknown): MessageFacts | null {
  const parsed = parseAlertmanagerPayload(body);
  return parsed.ok ? factsOf(parsed.payload) : null;
}

/**
 * The alerts that count are those in the group's status: a `firing` group may also carry alerts that
 * have just resolved, which must not be presented as the page's subject.
 */
export function factsOf(payload: AlertmanagerPayload): MessageFacts {
  const inStatus = payload.alerts.filter((a) => a.status === payload.status);
  const focus = inStatus.length > 0 ? inStatus : payload.alerts;
  const listed = focus.slice(0, MAX_LISTED_ALERTS).map((alert): AlertFacts => {
    const annotations = { ...payload.commonAnnotations, ...alert.annotations };
    return {
      name: oneLine(alertName(payload, alert), MAX_TITLE_CHARS),
      ...(alert.labels.instance ? { instance: oneLine(alert.labels.instance, MAX_TITLE_CHARS) } : {}),
      ...(annotations.runbook_url ? { runbookUrl: oneLine(annotations.runbook_url, MAX_ANNOTATION_CHARS) } : {}),
      ...(alert.generatorURL ? { sourceUrl: oneLine(alert.generatorURL, MAX_ANNOTATION_CHARS) } : {}),
      annotations,
    };
  });
  return {
    status: payload.status,
    title: titleOf(payload, focus),
    alerts: listed,
    unlisted: focus.length - listed.length,
    others: payload.alerts.length - focus.length,
    truncated: payload.truncatedAlerts ?? 0,
    alertCount: payload.alerts.length,
    ...(payload.externalURL ? { alertmanagerUrl: oneLine(payload.externalURL, MAX_ANNOTATION_CHARS) } : {}),
  };
}

/**
 * The facts as lines under a model's summary. One alert: its runbook and source. Several: each
 * alert's name with its links indented below, then how many more. Alertmanager's link last.
 */
export function factLines(facts: MessageFacts): string[] {
  const lines: string[] = [];
  const links = (a: AlertFacts, indent: string): string[] => [
    ...(a.runbookUrl ? [`${indent}Runbook: ${a.runbookUrl}`] : []),
    ...(a.sourceUrl ? [`${indent}Source: ${a.sourceUrl}`] : []),
  ];
  const [only] = facts.alerts;
  if (facts.alerts.length === 1 && only && only.name === facts.title) {
    lines.push(...links(only, ''));
  } else {
    for (const alert of facts.alerts) lines.push(`- ${alert.name}`, ...links(alert, '  '));
    if (facts.unlisted > 0) lines.push(`… and ${facts.unlisted} more`);
  }
  if (facts.alertmanagerUrl) lines.push(`Alertmanager: ${facts.alertmanagerUrl}`);
  return lines;
}

/** What a page keeps of the facts for its messages (§24.1): each alert's summary (else description), instance and links. */
export function pageAlertsOf(facts: MessageFacts): PageAlerts {
  const alerts = facts.alerts.map((a): PageAlert => {
    // An empty summary says nothing: the description speaks instead.
    const summary = oneLine(a.annotations.summary ?? '', MAX_SUMMARY_CHARS) || oneLine(a.annotations.description ?? '', MAX_SUMMARY_CHARS);
    return { name: a.name, ...(summary === '' ? {} : { summary }), ...(a.instance === undefined ? {} : { instance: a.instance }),
      ...(a.runbookUrl === undefined ? {} : { runbookUrl: a.runbookUrl }), ...(a.sourceUrl === undefined ? {} : { sourceUrl: a.sourceUrl }) };
  });
  return { alerts, more: facts.unlisted, ...(facts.alertmanagerUrl === undefined ? {} : { alertmanagerUrl: facts.alertmanagerUrl }) };
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

/** Label and annotation values may hold newlines and runs of blanks (templated descriptions). */
export function oneLine(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
