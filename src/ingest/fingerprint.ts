/**
 * The idempotency key of a webhook delivery (contract §9.3, §12.2): the sender's fingerprint header
 * when present; otherwise, for an Alertmanager notification, a key derived from what makes it one
 * notification — so stock Alertmanager, which sends no fingerprint header, still gets deduplication.
 */
import { createHash } from 'node:crypto';

/** What identifies an Alertmanager webhook body (payload version 4: `version`, `groupKey`, `status`, `alerts`). */
function isAlertmanagerPayload(payload: unknown): payload is { version: string; groupKey: string; status: string; alerts: unknown[] } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  const p = payload as Record<string, unknown>;
  return typeof p.version === 'string' && typeof p.groupKey === 'string' && typeof p.status === 'string' && Array.isArray(p.alerts);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Hex SHA-256 of `groupKey`, `status` and the sorted list of each alert's `fingerprint:status`, joined
 * by newlines; null when `payload` is not an Alertmanager notification.
 *
 * Alertmanager retries a failed notification with the same body: the same key, so a duplicate. A later
 * notification of the group differs in its status or its alerts' statuses or membership: a new key. What
 * Alertmanager varies between retries of one notification (nothing in the hashed fields) cannot split it.
 */
export function alertmanagerFingerprint(payload: unknown): string | null {
  if (!isAlertmanagerPayload(payload)) return null;
  const alerts = payload.alerts.map((a) => {
    const alert = typeof a === 'object' && a !== null ? a as Record<string, unknown> : {};
    return `${text(alert.fingerprint)}:${text(alert.status)}`;
  }).sort();
  return createHash('sha256').update([payload.groupKey, payload.status, ...alerts].join('\n')).digest('hex');
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
