/**
 * The Alertmanager webhook payload, version "4"
 * (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config).
 *
 * Lenient on keys we do not know (Alertmanager adds fields over time: loose objects keep them) and
 * strict on the types of the keys we use. `version`, `status` and `alerts` (with each alert's `status`
 * and `labels`) are required: without them there is nothing to triage. The other documented keys
 * Alertmanager always sends are optional here so a hand-written test body (`svc webhook send`) still
 * passes, but when present they must have the documented type.
 */
import { z } from 'zod';

const labelSet = z.record(z.string(), z.string());
const alertStatus = z.enum(['firing', 'resolved'], { error: 'must be "firing" or "resolved"' });

export const alertmanagerAlertSchema = z.looseObject({
  status: alertStatus,
  labels: labelSet,
  annotations: labelSet.default({}),
  startsAt: z.string().optional(),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  fingerprint: z.string().optional(),
});

export const alertmanagerPayloadSchema = z.looseObject({
  version: z.literal('4', { error: 'must be "4" (Alertmanager webhook payload version 4)' }),
  groupKey: z.string().optional(),
  truncatedAlerts: z.number().int().min(0).optional(),
  status: alertStatus,
  receiver: z.string().optional(),
  groupLabels: labelSet.default({}),
  commonLabels: labelSet.default({}),
  commonAnnotations: labelSet.default({}),
  externalURL: z.string().optional(),
  alerts: z.array(alertmanagerAlertSchema),
});

/** The payload without its alerts: the alerts are checked one by one (see parseAlertmanagerPayload). */
const envelopeSchema = alertmanagerPayloadSchema.omit({ alerts: true });

export type AlertmanagerAlert = z.infer<typeof alertmanagerAlertSchema>;
export type AlertmanagerPayload = z.infer<typeof alertmanagerPayloadSchema>;

export type AlertmanagerParseResult =
  | { ok: true; payload: AlertmanagerPayload }
  | { ok: false; error: string };

/**
 * Parses an Alertmanager v4 body. On failure `error` names the first wrong field as a path, e.g.
 * `alerts[0].labels.severity: Invalid input: expected string, received number`.
 */
export function parseAlertmanagerPayload(input: unknown): AlertmanagerParseResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, error: `payload: expected a JSON object, got ${describe(input)}` };
  }
  const envelope = envelopeSchema.safeParse(input);
  if (!envelope.success) return { ok: false, error: firstIssue(envelope.error.issues, []) };
  const alerts = (input as { alerts?: unknown }).alerts;
  if (!Array.isArray(alerts)) return { ok: false, error: `alerts: expected an array, got ${describe(alerts)}` };
  // One alert at a time, stopping at the first bad one: a body of 300,000 broken alerts costs one
  // failed check, not 300,000 collected issues (contract §11.1).
  const parsed: AlertmanagerAlert[] = [];
  for (let i = 0; i < alerts.length; i++) {
    const alert = alertmanagerAlertSchema.safeParse(alerts[i]);
    if (!alert.success) return { ok: false, error: firstIssue(alert.error.issues, ['alerts', i]) };
    parsed.push(alert.data);
  }
  return { ok: true, payload: { ...envelope.data, alerts: parsed } };
}

function firstIssue(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, prefix: PropertyKey[]): string {
  const issue = issues[0];
  if (!issue) return 'payload: invalid';
  return `${formatPath([...prefix, ...issue.path])}: ${issue.message}`;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? 'payload' : out;
}

function describe(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  return typeof input;
}
