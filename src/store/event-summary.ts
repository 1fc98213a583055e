/**
 * What a person wants of an event in a list: its title, severity, firing/resolved and who triaged it.
 * Triage decided them and wrote them in the `triage.decision` audit row; before (or without) one, the
 * Alertmanager payload says what it can (`status`, `commonLabels.alertname`/`severity`, summary).
 */
export interface EventSummary {
  title: string | null;
  severity: string | null;
  status: string | null;
  triagedBy: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function summaryOfPayload(payload: unknown): EventSummary {
  if (!isObject(payload)) return { title: null, severity: null, status: null, triagedBy: null };
  const first = Array.isArray(payload.alerts) ? payload.alerts.find(isObject) : undefined;
  const labels = isObject(payload.commonLabels) ? payload.commonLabels
    : isObject(first?.labels) ? first.labels
      : isObject(payload.labels) ? payload.labels : {};
  const annotations = isObject(payload.commonAnnotations) ? payload.commonAnnotations : isObject(first?.annotations) ? first.annotations : {};
  return {
    title: str(annotations.summary) ?? str(labels.alertname) ?? str(payload.title),
    severity: str(labels.severity) ?? str(payload.severity),
    status: str(payload.status) ?? str(first?.status),
    triagedBy: null,
  };
}

/** The summary a `triage.decision` row's data holds, or null when it is not one. */
export function summaryOfTriage(data: unknown): { eventId: string; summary: EventSummary } | null {
  if (!isObject(data) || typeof data.eventId !== 'string') return null;
  return { eventId: data.eventId, summary: { title: str(data.title), severity: str(data.severity), status: str(data.status), triagedBy: str(data.triagedBy) } };
}
