/**
 * `pagerduty` channel (contract §18.4): PagerDuty Events API v2, keeping PagerDuty's incident in step
 * with the page. `dedup_key` is the page id, so every message of a page lands on one incident:
 *
 *   opening, escalation, join, unacknowledged → {"event_action": "trigger", "payload": {…}, "links": […]}
 *   acknowledged                              → {"event_action": "acknowledge"}
 *   resolved                                  → {"event_action": "resolve"}
 *
 * PagerDuty answers 202 `{"status":"success","dedup_key":…}`; 400 `{"status":"invalid event",
 * "message":…,"errors":[…]}` (never retried: the event itself is wrong); 429 when the integration is
 * throttled and 5xx when PagerDuty is unwell (both retried, Retry-After honoured). The routing key is a
 * secret: it is in the request body only, and redacted from every text that leaves this file.
 *
 * A page message (§24.1) says what is wrong in PagerDuty's own places, from the page-message model:
 * `payload.summary` (the incident's title) is the title and the alerts' summaries; `custom_details`
 * lists each alert (summary, instance, runbook, source), what happened and who is paged now and next;
 * the runbook and source are also top-level `links`, which PagerDuty shows as links
 * (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/).
 */
import type { PagerdutyChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { PageMessage } from '../../oncall/page-message-model.js';
import { pagedLine } from '../../oncall/page-text.js';
import type { Channel, DeliveryResult, OutboundMessage, Severity } from './channel.js';
import { createHttpChannel, parseRetryAfter, safeSnippet } from './http-channel.js';

/** PagerDuty refuses events above 512 KB; the finding is cut so the whole event stays under. */
export const MAX_EVENT_BYTES = 512 * 1024;
export const MAX_SUMMARY_CHARS = 1024;
const MAX_RESPONSE_BYTES = 64 * 1024;

const SEVERITY: Record<Severity, 'critical' | 'error' | 'warning'> = { P1: 'critical', P2: 'error', P3: 'warning' };

export type PagerdutyAction = 'trigger' | 'acknowledge' | 'resolve';

export function pagerdutyAction(message: OutboundMessage): PagerdutyAction {
  if (message.status === 'resolved' || message.pageKind === 'resolved') return 'resolve';
  if (message.pageKind === 'acknowledged') return 'acknowledge';
  return 'trigger';
}

const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

const cutSummary = (text: string): string => (text.length > MAX_SUMMARY_CHARS ? `${text.slice(0, MAX_SUMMARY_CHARS - 1)}…` : text);

/** The incident's title: the page's title, then what is wrong — each alert's summary once (§24.1). */
function summaryOf(title: string, page: PageMessage | undefined): string {
  const said = [...new Set((page?.alerts ?? []).flatMap((a) => (a.summary === undefined ? [] : [a.summary])))];
  return cutSummary(said.length === 0 ? title : `${title}: ${said.join('; ')}`);
}

/** What the model says beyond the finding's text, as PagerDuty's details: the alerts, what happened, who is paged. */
function modelDetails(page: PageMessage, zone: string): Record<string, unknown> {
  const paged = pagedLine(page, zone);
  return {
    alerts: page.alerts.map((a) => ({ name: a.name, ...(a.summary === undefined ? {} : { summary: a.summary }),
      ...(a.instance === undefined ? {} : { instance: a.instance }), ...(a.runbookUrl === undefined ? {} : { runbook_url: a.runbookUrl }),
      ...(a.sourceUrl === undefined ? {} : { source_url: a.sourceUrl }) })),
    ...(page.moreAlerts > 0 ? { more_alerts: page.moreAlerts } : {}),
    happened: page.said,
    ...(paged === null ? {} : { paged }),
  };
}

/** The runbook, source and Alertmanager links of the page, as Events v2 `links` (`href`, `text`), each URL once. */
function linksOf(page: PageMessage): Array<{ href: string; text: string }> {
  const several = page.alerts.length > 1;
  const out: Array<{ href: string; text: string }> = [];
  const add = (href: string | undefined, text: string): void => {
    if (href !== undefined && !out.some((l) => l.href === href)) out.push({ href, text });
  };
  for (const a of page.alerts) {
    add(a.runbookUrl, several ? `Runbook: ${a.name}` : 'Runbook');
    add(a.sourceUrl, several ? `Source: ${a.name}` : 'Source');
  }
  add(page.alertmanagerUrl, 'Alertmanager');
  return out;
}

/** The event PagerDuty receives for a message (pure). */
export function pagerdutyEvent(message: OutboundMessage, routingKey: string): Record<string, unknown> {
  const action = pagerdutyAction(message);
  const dedupKey = message.pageId ?? message.eventId;
  const base = { routing_key: routingKey, event_action: action, dedup_key: dedupKey };
  if (action !== 'trigger') return base;
  const page = message.page;
  const summary = summaryOf(message.title, page);
  const details = (finding: string): Record<string, unknown> => ({
    finding, ...(page === undefined ? {} : modelDetails(page, message.zone ?? 'UTC')),
    event_id: message.eventId, ...(message.pageId === undefined ? {} : { page_id: message.pageId }), triaged_by: message.triagedBy,
  });
  const links = page === undefined ? [] : linksOf(page);
  const event = (finding: string): Record<string, unknown> => ({ ...base, client: 'svc',
    payload: { summary, source: message.agentId, severity: SEVERITY[message.severity], custom_details: details(finding) },
    ...(links.length === 0 ? {} : { links }) });
  const whole = event(message.text);
  if (byteLength(whole) <= MAX_EVENT_BYTES) return whole;
  // The longest beginning of the finding that fits with the note, found by bisection: escaping makes bytes and characters differ.
  const total = Buffer.byteLength(message.text, 'utf8');
  const cut = (keep: number): Record<string, unknown> => {
    const kept = message.text.slice(0, keep);
    return event(`${kept}\n[cut: ${Buffer.byteLength(kept, 'utf8')} of ${total} bytes kept to stay under PagerDuty's 512 KB]`);
  };
  let low = 0;
  let high = message.text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (byteLength(cut(mid)) <= MAX_EVENT_BYTES) low = mid;
    else high = mid - 1;
  }
  return cut(low);
}

/** Outcome of PagerDuty's answer. */
export function classifyPagerduty(status: number, headers: Headers, body: string, nowMs: number, secrets: readonly string[]): DeliveryResult {
  let data: { status?: unknown; message?: unknown; errors?: unknown; dedup_key?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) data = parsed;
  } catch {
    // Not PagerDuty's JSON (a proxy's page): the status says enough.
  }
  if (status === 202 || (status >= 200 && status < 300)) {
    return { ok: true, detail: { httpStatus: String(status), ...(typeof data.dedup_key === 'string' ? { dedupKey: data.dedup_key } : {}) } };
  }
  const errors: unknown[] = Array.isArray(data.errors) ? (data.errors as unknown[]) : [];
  const said = [data.message, ...errors].filter((x): x is string => typeof x === 'string').join('; ');
  const error = `pagerduty ${status}: ${safeSnippet(said || body || 'no body', secrets, 400)}`;
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), nowMs);
    return retryAfterMs === undefined ? { ok: false, retryable: true, error } : { ok: false, retryable: true, error, retryAfterMs };
  }
  return { ok: false, retryable: false, error };
}

export function createPagerdutyChannel(config: PagerdutyChannelConfig, deps: { clock: Clock }): Channel {
  const secrets = [config.routingKey];
  return createHttpChannel({
    id: config.id, type: 'pagerduty', url: config.url, timeoutMs: config.timeoutMs, maxAttempts: config.maxAttempts, secrets,
    errorPrefix: 'pagerduty: ', maxResponseBytes: MAX_RESPONSE_BYTES, followsPageState: true,
    body: (message) => pagerdutyEvent(message, config.routingKey),
    classify: (status, headers, body, nowMs) => classifyPagerduty(status, headers, body, nowMs, secrets),
  }, deps);
}
