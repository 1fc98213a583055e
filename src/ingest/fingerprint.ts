/**
 * The idempotency key of a webhook delivery (contract §9.3, §12.2): the sender's fingerprint header
 * when present; otherwise, for an Alertmanager notification, a key derived from what makes it one
 * notification — so stock Alertmanager, which sends no fingerprint header, still gets deduplication.
 *
 * The two live in separate key spaces. The header is outside the signature: whoever replays one
 * captured signed request can choose it. A derived key carries DERIVED_PREFIX, which a header value may
 * not (ingest refuses it with 400), so no chosen header can ever equal the key of a real notification.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';

/** What starts every derived key, and what a header fingerprint may not start with. */
export const DERIVED_PREFIX = 'derived:';

/** What identifies an Alertmanager webhook body (payload version 4: `version`, `groupKey`, `status`, `alerts`). */
function isAlertmanagerPayload(payload: unknown): payload is { version: string; groupKey: string; status: string; alerts: unknown[] } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  const p = payload as Record<string, unknown>;
  return typeof p.version === 'string' && typeof p.groupKey === 'string' && typeof p.status === 'string' && Array.isArray(p.alerts);
}

/** A field as the key sees it: absent is null, so `{}` and `{"endsAt": null}` are one alert. */
const field = (value: unknown): unknown => value === undefined ? null : value;

/**
 * What identifies one alert of a notification: its `fingerprint` (Alertmanager's hash of its labels)
 * or, when a sender leaves it out, the labels themselves — never nothing, or every such alert would be
 * one — with its `status`, `startsAt` and `endsAt`. Not an object: the value itself.
 */
function alertIdentity(alert: unknown): unknown {
  if (typeof alert !== 'object' || alert === null || Array.isArray(alert)) return { alert: field(alert) };
  const a = alert as Record<string, unknown>;
  const who = typeof a.fingerprint === 'string' && a.fingerprint !== '' ? { fingerprint: a.fingerprint } : { labels: field(a.labels) };
  return { ...who, status: field(a.status), startsAt: field(a.startsAt), endsAt: field(a.endsAt) };
}

/**
 * DERIVED_PREFIX + hex SHA-256 of the canonical JSON (RFC 8785) of `groupKey`, `status` and the sorted
 * list of each alert's identity (alertIdentity); null when `payload` is not an Alertmanager notification.
 *
 * Alertmanager retries a failed notification with the same body: the same key, so a duplicate. A later
 * notification of the group differs in its status or in its alerts' statuses, times or membership — a
 * re-fire after a resolve has a new `startsAt` — so a new key. Canonical JSON makes the encoding
 * unambiguous: no choice of label values can make two different notifications one text.
 */
export function alertmanagerFingerprint(payload: unknown): string | null {
  if (!isAlertmanagerPayload(payload)) return null;
  const alerts = payload.alerts.map((a) => canonicalJson(alertIdentity(a))).sort();
  const text = canonicalJson({ groupKey: payload.groupKey, status: payload.status, alerts });
  return DERIVED_PREFIX + createHash('sha256').update(text).digest('hex');
}

/** Whether a sender's header value may be used as a fingerprint: it must not claim the derived key space. */
export function isHeaderFingerprintAllowed(header: string): boolean {
  return !header.startsWith(DERIVED_PREFIX);
}

/**
 * The header's value when the sender gave one, else the derived key (or null: no deduplication).
 * `payloadText` has passed ingest's bounded shape check (a JSON object, at most 64 levels deep); it is
 * parsed only when it can be an Alertmanager body, so other bodies are never built.
 */
export function eventFingerprint(header: string | undefined, payloadText: string): string | null {
  if (header !== undefined) return header;
  if (!payloadText.includes('"groupKey"')) return null;
  try {
    return alertmanagerFingerprint(JSON.parse(payloadText));
  } catch {
    return null;
  }
}
