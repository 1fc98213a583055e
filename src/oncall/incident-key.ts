/**
 * The incident key of an event (contract §17 `incidents.key`): what makes alerts one page.
 *
 * - `groupKey` (default): Alertmanager's `groupKey`, one key per notification group. A payload without
 *   one (not from Alertmanager) falls back to the event's fingerprint.
 * - `fingerprint`: the event's fingerprint (the ingest's idempotency key).
 * - a template such as `{{labels.alertname}}/{{labels.cluster}}`: each `{{labels.NAME}}` is the label's
 *   value in the payload's `commonLabels`, else its `groupLabels`. When a label the template names is
 *   in neither, the key is the `groupKey` rule's instead: an incomplete key would merge unrelated
 *   alerts into one page, a separate page per group is the safe side.
 *
 * Keys longer than MAX_KEY_CHARS are replaced by `sha256:<hex>` of themselves: they live in an index.
 *
 * Two key spaces share the pages' index: alerts' keys (above) and heartbeats' (`heartbeat:<id>`,
 * §17.7). An alert's key never lies in the heartbeats' space, whatever its payload or template says:
 * one that starts with `heartbeat:`, or with the escape `~` itself, gets a `~` in front — one-to-one, so
 * two alerts' keys stay apart, and every other key (all that Alertmanager's groupKeys look like) keeps
 * the value it had, so pages stored before still join and resolve.
 */
import { createHash } from 'node:crypto';
import type { IncidentKeyRule } from './oncall-config.js';
import { LABEL_NAME, payloadLabels } from './label-name.js';

export const MAX_KEY_CHARS = 512;
/** The heartbeats' key space (§17.7): a missed heartbeat's page has the key `heartbeat:<id>`. */
export const HEARTBEAT_KEY_PREFIX = 'heartbeat:';
/** What an alert's key that would fall in another space is prefixed with. */
const ALERT_ESCAPE = '~';
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type TemplatePart = { text: string } | { label: string };

/** A key template's parts; an error names the first placeholder that is not `{{labels.NAME}}`. */
export function parseKeyTemplate(template: string): { ok: true; parts: TemplatePart[] } | { ok: false; error: string } {
  if (template.length === 0 || template.length > 256) return { ok: false, error: 'a template is 1..256 characters' };
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    const inner = m[1] as string;
    const name = inner.startsWith('labels.') ? inner.slice('labels.'.length) : '';
    if (!LABEL_NAME.test(name)) return { ok: false, error: `placeholder {{${inner}}} is not {{labels.NAME}}` };
    if (m.index > last) parts.push({ text: template.slice(last, m.index) });
    parts.push({ label: name });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ text: template.slice(last) });
  if (!parts.some((p) => 'label' in p)) return { ok: false, error: 'it names no {{labels.NAME}}' };
  const rest = parts.filter((p): p is { text: string } => 'text' in p).map((p) => p.text).join('');
  if (rest.includes('{{') || rest.includes('}}')) return { ok: false, error: 'unbalanced {{ or }}' };
  return { ok: true, parts };
}

/** The page key of a heartbeat (§17.7). */
export function heartbeatKey(heartbeatId: string): string {
  return `${HEARTBEAT_KEY_PREFIX}${heartbeatId}`;
}

/** An alert's key in the alerts' space, bounded for the index. */
function bounded(key: string): string {
  const own = key.startsWith(HEARTBEAT_KEY_PREFIX) || key.startsWith(ALERT_ESCAPE) ? `${ALERT_ESCAPE}${key}` : key;
  return own.length <= MAX_KEY_CHARS ? own : `sha256:${createHash('sha256').update(own).digest('hex')}`;
}

function groupKeyOf(payload: unknown, fingerprint: string): string {
  const groupKey = (payload as { groupKey?: unknown } | null)?.groupKey;
  return typeof groupKey === 'string' && groupKey.length > 0 ? groupKey : fingerprint;
}

/** The incident key of one event under the file's rule. */
export function incidentKey(rule: IncidentKeyRule, payload: unknown, fingerprint: string): string {
  if (rule.kind === 'fingerprint') return bounded(fingerprint);
  if (rule.kind === 'groupKey') return bounded(groupKeyOf(payload, fingerprint));
  const parsed = parseKeyTemplate(rule.template);
  if (!parsed.ok) return bounded(groupKeyOf(payload, fingerprint));
  const common = payloadLabels(payload, 'commonLabels');
  const group = payloadLabels(payload, 'groupLabels');
  let key = '';
  for (const part of parsed.parts) {
    if ('text' in part) {
      key += part.text;
      continue;
    }
    const value = common[part.label] ?? group[part.label];
    if (value === undefined) return bounded(groupKeyOf(payload, fingerprint));
    key += value;
  }
  return bounded(key);
}
