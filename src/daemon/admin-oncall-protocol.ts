/**
 * The admin socket's on-call requests (contract §17.5, §17.6): acting on a page and schedule
 * overrides. Validated as strictly as the rest of the protocol (admin-protocol.ts merges them in).
 */
import { z } from 'zod';
import { ID_PATTERN } from '../config/schema.js';
import { MAX_SILENCE_MS, parseSilenceMatcher } from '../oncall/silence-match.js';
import type { StoredOverride, StoredSilence } from '../store/oncall-store.js';

/** Who is at the keyboard, as the CLI's OS user names them; written into the audit row. */
const user = z.string().regex(/^[\x21-\x7e]{1,64}$/);
const id = z.string().regex(ID_PATTERN);
const person = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/);
const note = z.string().min(1).max(1000);
/** An actor as the audit chain names it (`user:alice@example.com`): visible ASCII, bounded. */
export const ACTOR_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** Asked through `svc console`: recorded as `via`, with `actor` (the signed-in identity) as the audit row's actor. */
const viaConsole = {
  via: z.literal('console').optional(),
  actor: z.string().regex(ACTOR_PATTERN).optional(),
};
const viaTogether = (r: { via?: 'console'; actor?: string }): boolean => (r.actor === undefined) === (r.via === undefined);
const VIA_TOGETHER = 'actor and via go together';
/** Through a console, the person of oncall.yaml who acts (contract §24.6): the audit row's data names them as `by`. */
const asPerson = { as: person.optional() };
const asThroughConsole = (r: { via?: 'console'; as?: string }): boolean => r.as === undefined || r.via !== undefined;
const AS_THROUGH_CONSOLE = 'as names who acts through the console: give via and actor too';

/** Page, override and silence ids as the store makes them (`p…`, `o…`, `s…`): the CLI and the console check them before sending. */
export const PAGE_ID_PATTERN = /^[a-z0-9]{1,40}$/;
export const OVERRIDE_ID_PATTERN = /^o[a-z0-9]{1,40}$/;
export const SILENCE_ID_PATTERN = /^s[a-z0-9]{1,40}$/;

const pageId = z.string().regex(PAGE_ID_PATTERN);
const silenceId = z.string().regex(SILENCE_ID_PATTERN);
/** Matchers arrive as `KEY=VALUE` / `KEY=~REGEX` text and are checked by the one parser the CLI uses. */
const matcherText = z.string().max(600).superRefine((text, ctx) => {
  const parsed = parseSilenceMatcher(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
});

export const oncallRequestSchemas = [
  z.strictObject({
    op: z.literal('page.act'),
    page: pageId,
    action: z.enum(['ack', 'unack', 'resolve', 'escalate']),
    user,
    as: person.optional(),
    note: note.optional(),
    toStep: z.number().int().min(1).max(100).optional(),
    /** Through the console, `actor` is also `by` unless `as` names the person. */
    ...viaConsole,
  }).refine(viaTogether, VIA_TOGETHER),
  z.strictObject({
    op: z.literal('override.add'),
    schedule: id,
    person,
    agent: id.optional(),
    fromMs: z.number().int().nonnegative(),
    toMs: z.number().int().positive(),
    user,
    ...viaConsole,
    ...asPerson,
  }).refine((r) => r.toMs > r.fromMs, '--to must be after --from').refine(viaTogether, VIA_TOGETHER).refine(asThroughConsole, AS_THROUGH_CONSOLE),
  /** The overrides in force now or starting later, soonest first; `schedule`/`agent` narrow them. */
  z.strictObject({ op: z.literal('override.ls'), schedule: id.optional(), agent: id.optional(), user }),
  z.strictObject({ op: z.literal('override.rm'), id: z.string().regex(OVERRIDE_ID_PATTERN), user, ...viaConsole, ...asPerson })
    .refine(viaTogether, VIA_TOGETHER).refine(asThroughConsole, AS_THROUGH_CONSOLE),
  z.strictObject({
    op: z.literal('silence.add'),
    matchers: z.array(matcherText).min(1).max(20),
    durationMs: z.number().int().positive().max(MAX_SILENCE_MS),
    reason: note,
    agent: id.optional(),
    user,
    ...viaConsole,
    ...asPerson,
  }).refine(viaTogether, VIA_TOGETHER).refine(asThroughConsole, AS_THROUGH_CONSOLE),
  z.strictObject({ op: z.literal('silence.ls'), user }),
  z.strictObject({ op: z.literal('silence.expire'), id: silenceId, user, ...viaConsole, ...asPerson })
    .refine(viaTogether, VIA_TOGETHER).refine(asThroughConsole, AS_THROUGH_CONSOLE),
  /** `svc oncall calendar-url` (contract §24.7): a subscription URL for a schedule, or one person's shifts in it; audited. */
  z.strictObject({ op: z.literal('calendar.url'), schedule: id, agent: id.optional(), person: person.optional(), user }),
] as const;

/** A silence as the admin socket answers it (and the CLI prints it): as stored, with when it was expired by hand. */
export type SilenceView = StoredSilence;

/** An override as the admin socket answers it (and `svc oncall override ls` prints it): as stored, with who added it when. */
export type OverrideView = StoredOverride;

/** A page as the CLI prints it after acting on it. */
export interface ActedPage {
  id: string;
  state: string;
  step: number;
  steps: number;
  acknowledgedBy: string | null;
  resolvedBy: string | null;
}

export type OncallAdminResponse =
  | { ok: true; op: 'page.act'; page: ActedPage; changed: boolean }
  | { ok: true; op: 'override.add'; id: string; agent: string }
  | { ok: true; op: 'override.ls'; overrides: OverrideView[] }
  | { ok: true; op: 'override.rm'; id: string }
  | { ok: true; op: 'silence.add'; silence: SilenceView }
  | { ok: true; op: 'silence.ls'; silences: SilenceView[] }
  | { ok: true; op: 'silence.expire'; silence: SilenceView }
  | { ok: true; op: 'calendar.url'; url: string; agent: string; schedule: string; person: string | null };
