/**
 * `pagerduty` channel (contract §18.4): PagerDuty Events API v2, keeping PagerDuty's incident in step
 * with the page. `dedup_key` is the page id, so every message of a page lands on one incident:
 *
 *   opening, escalation, join, unacknowledged → {"event_action": "trigger", "payload": {…}}
 *   acknowledged                              → {"event_action": "acknowledge"}
 *   resolved                                  → {"event_action": "resolve"}
 *
 * PagerDuty answers 202 `{"status":"success","dedup_key":…}`; 400 `{"status":"invalid event",
 * "message":…,"errors":[…]}` (never retried: the event itself is wrong); 429 when the integration is
 * throttled and 5xx when PagerDuty is unwell (both retried, Retry-After honoured). The routing key is a
 * secret: it is in the request body only, and redacted from every text that leaves this file.
 */
import type { PagerdutyChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
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

/** The event PagerDuty receives for a message (pure). */
export function pagerdutyEvent(message: OutboundMessage, routingKey: string): Record<string, unknown> {
  const action = pagerdutyAction(message);
  const dedupKey = message.pageId ?? message.eventId;
  const base = { routing_key: routingKey, event_action: action, dedup_key: dedupKey };
  if (action !== 'trigger') return base;
  const summary = message.title.length > MAX_SUMMARY_CHARS ? `${message.title.slice(0, MAX_SUMMARY_CHARS - 1)}…` : message.title;
  const details = (finding: string): Record<string, unknown> => ({
    finding, event_id: message.eventId, ...(message.pageId === undefined ? {} : { page_id: message.pageId }), triaged_by: message.triagedBy,
  });
  const event = (finding: string): Record<string, unknown> => ({ ...base, client: 'svc',
    payload: { summary, source: message.agentId, severity: SEVERITY[message.severity], custom_details: details(finding) } });
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
