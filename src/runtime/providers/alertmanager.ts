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
  const parsed = alertmanagerPayloadSchema.safeParse(input);
  if (parsed.success) return { ok: true, payload: parsed.data };
  const issue = parsed.error.issues[0];
  if (!issue) return { ok: false, error: 'payload: invalid' };
  return { ok: false, error: `${formatPath(issue.path)}: ${issue.message}` };
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
