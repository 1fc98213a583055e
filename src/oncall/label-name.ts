/** Alert label names and the label sets of an Alertmanager-shaped payload, read defensively. */

/** A Prometheus label name. */
export const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Labels = Readonly<Record<string, string>>;

function labelsOf(value: unknown): Labels {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The `labels` of every alert of a payload (Alertmanager's `alerts[]`); a payload without alerts has none. */
export function alertLabels(payload: unknown): Labels[] {
  const alerts = (payload as { alerts?: unknown } | null)?.alerts;
  if (!Array.isArray(alerts)) return [];
  return alerts.map((a: unknown) => labelsOf((a as { labels?: unknown } | null)?.labels));
}

/** A named label set of the payload (`commonLabels`, `groupLabels`). */
export function payloadLabels(payload: unknown, key: 'commonLabels' | 'groupLabels'): Labels {
  return labelsOf((payload as Record<string, unknown> | null)?.[key]);
}

/** The payload's top-level `status` (`firing` | `resolved` for Alertmanager), or null. */
export function payloadStatus(payload: unknown): string | null {
  const status = (payload as { status?: unknown } | null)?.status;
  return typeof status === 'string' ? status : null;
}

/** Longest alert name kept (a label value may be long; a report shows a name). */
export const ALERT_NAME_MAX = 200;

/**
 * The alert name of a payload (contract §23: the noisiest alerts): Alertmanager's `commonLabels`, else
 * its first alert's labels, else a plain payload's own `labels`; controls, format characters and lone
 * surrogates become spaces, at most ALERT_NAME_MAX code points; null when there is none.
 */
export function alertNameOf(payload: unknown): string | null {
  const plain = labelsOf((payload as { labels?: unknown } | null)?.labels);
  const raw = payloadLabels(payload, 'commonLabels').alertname ?? alertLabels(payload)[0]?.alertname ?? plain.alertname;
  if (raw === undefined) return null;
  // Whole code points: a cut never leaves half a surrogate pair, which no JSON reader takes back.
  const name = [...raw.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, ' ').trim()].slice(0, ALERT_NAME_MAX).join('').trim();
  return name === '' ? null : name;
}
