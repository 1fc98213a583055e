/**
 * On-call rows as a store returns them (snake_case columns; PostgreSQL's bigints as text), decoded the
 * same way for both stores. Decoding a page or a notification never throws: a body that is not what
 * svc wrote (cut short by hand, damaged on disk, another row's) is reported with the reason, and the
 * store sets the row aside (quarantine) instead of failing the batch it came in (docs/faults.md).
 */
import { z } from 'zod';
import type { SilenceMatcher } from '../oncall/oncall-config.js';
import type { PageNotification, PageRecord, PageState } from '../oncall/page.js';
import { NOTIFICATION_KINDS, PAGE_STATES } from '../oncall/page.js';
import type { DamagedPage, StoredOverride, StoredSilence } from './oncall-store.js';

export function toStoredOverride(r: Record<string, unknown>): StoredOverride {
  return { id: String(r.id), agentId: String(r.agent_id), scheduleId: String(r.schedule_id), personId: String(r.person_id),
    fromMs: Number(r.from_ms), toMs: Number(r.to_ms), createdAtMs: Number(r.created_ms), createdBy: String(r.created_by) };
}

export function toStoredSilence(r: Record<string, unknown>): StoredSilence {
  return { id: String(r.id), agentId: typeof r.agent_id === 'string' ? r.agent_id : null, matchers: JSON.parse(String(r.matchers)) as SilenceMatcher[],
    startsAtMs: Number(r.starts_ms), endsAtMs: Number(r.ends_ms), reason: String(r.reason), createdBy: String(r.created_by),
    expiredAtMs: r.expired_ms === null || r.expired_ms === undefined ? null : Number(r.expired_ms) };
}

const ms = z.number().int();
const msOrNull = ms.nullable();
const severity = z.enum(['P1', 'P2', 'P3']);
const target = z.looseObject({ kind: z.enum(['person', 'schedule', 'channel']), id: z.string() });

/** What every reader of a page relies on: the planner, the views, the timer queue. Unknown keys pass (a newer svc's). */
const pageSchema = z.looseObject({
  id: z.string(),
  agentId: z.string(),
  incidentKey: z.string(),
  state: z.enum(PAGE_STATES),
  exhausted: z.boolean(),
  policy: z.looseObject({
    id: z.string(),
    steps: z.array(z.looseObject({ notify: z.array(target), afterMs: ms.min(0) })).min(1),
    repeat: ms.min(0),
    ackTimeoutMs: ms.min(0),
    onExhausted: z.array(target),
  }),
  policySha256: z.string(),
  step: ms.min(1),
  loop: ms.min(0),
  round: ms.min(0),
  openedAtMs: ms,
  acknowledgedAtMs: msOrNull,
  acknowledgedBy: z.string().nullable(),
  resolvedAtMs: msOrNull,
  resolvedBy: z.string().nullable(),
  nextEscalationAtMs: msOrNull,
  ackTimeoutAtMs: msOrNull,
  pendingJoins: ms.min(0),
  joinNoticeAtMs: msOrNull,
  lastJoinNoticeAtMs: msOrNull,
  eventIds: z.array(z.string()),
  title: z.string(),
  severity,
  facts: z.array(z.string()).optional(),
  notified: z.array(z.looseObject({ person: z.string(), channel: z.string(), to: z.string().nullable() })),
  version: ms.min(0),
}).refine((p) => p.step <= p.policy.steps.length, { message: 'step past the last step of its policy', path: ['step'] });

const notificationSchema = z.looseObject({
  deliveryId: z.string(),
  pageId: z.string().nullable(),
  agentId: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  eventId: z.string(),
  channelId: z.string(),
  person: z.string(),
  to: z.string().nullable(),
  severity,
  status: z.enum(['firing', 'resolved']),
  title: z.string(),
  text: z.string(),
});

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * A stored body checked against its schema. The reason names the first field that is wrong and what
 * was expected, never the value (the row may hold anything); the decoded value is the parsed body as
 * stored, unknown keys and all.
 */
function decodeBody<T>(text: unknown, schema: z.ZodType, what: string): Decoded<T> {
  if (typeof text !== 'string') return { ok: false, reason: 'body is not text' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text: say only where it stops.
    return { ok: false, reason: `body is not JSON (${text.length} characters)` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: value as T };
  const issue = parsed.error.issues[0];
  const at = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.map(String).join('.')}: `;
  return { ok: false, reason: `body is not ${what}: ${at}${issue?.message ?? 'invalid'}` };
}

/** A page row's body as its record; a body of another page (its id or agent not the row's) is damage too. */
export function decodePage(r: Record<string, unknown>): Decoded<PageRecord> {
  const decoded = decodeBody<PageRecord>(r.body, pageSchema, 'a page');
  if (!decoded.ok) return decoded;
  if (decoded.value.id !== r.id || decoded.value.agentId !== r.agent_id) return { ok: false, reason: 'body is another page\'s (its id or agent differs from the row\'s)' };
  return decoded;
}

/** An outbox row's body as its notification; a body of another notification is damage too. */
export function decodeNotification(r: Record<string, unknown>): Decoded<PageNotification> {
  const decoded = decodeBody<PageNotification>(r.body, notificationSchema, 'a notification');
  if (!decoded.ok) return decoded;
  if (decoded.value.deliveryId !== r.delivery_id) return { ok: false, reason: 'body is another notification\'s (its deliveryId differs from the row\'s)' };
  return decoded;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What the columns of a damaged page row still say (a damaged SQLite row may hold anything in any column). */
export function damagedPage(r: Record<string, unknown>, reason: string): DamagedPage {
  const state = (PAGE_STATES as readonly unknown[]).includes(r.state) ? r.state as PageState : 'triggered';
  const openedAtMs = Number(r.ts_ms);
  return { corrupt: true, id: text(r.id), agentId: text(r.agent_id), incidentKey: text(r.incident_key), state, policy: text(r.policy_id),
    openedAtMs: Number.isSafeInteger(openedAtMs) ? openedAtMs : 0, reason };
}

/** A page row (`id, agent_id, incident_key, state, policy_id, ts_ms, body`) as a store reads it: the record, or what is left of it. */
export function toStoredPage(r: Record<string, unknown>): PageRecord | DamagedPage {
  const decoded = decodePage(r);
  return decoded.ok ? decoded.value : damagedPage(r, decoded.reason);
}

/** The columns a page read selects: enough to decode the body and, when it is damaged, to say what the row still says. */
export const PAGE_COLS = 'id, agent_id, incident_key, state, policy_id, ts_ms, body';
