/**
 * The admin socket's on-call requests (contract §17.5, §17.6): acting on a page and schedule
 * overrides. Validated as strictly as the rest of the protocol (admin-protocol.ts merges them in).
 */
import { z } from 'zod';
import { ID_PATTERN } from '../config/schema.js';

/** Who is at the keyboard, as the CLI's OS user names them; written into the audit row. */
const user = z.string().regex(/^[\x21-\x7e]{1,64}$/);
const pageId = z.string().regex(/^[a-z0-9]{1,40}$/);
const id = z.string().regex(ID_PATTERN);
const person = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/);
const note = z.string().min(1).max(1000);
/** An actor as the audit chain names it (`user:alice@example.com`): visible ASCII, bounded. */
export const ACTOR_PATTERN = /^[\x21-\x7e]{1,200}$/;

export const oncallRequestSchemas = [
  z.strictObject({
    op: z.literal('page.act'),
    page: pageId,
    action: z.enum(['ack', 'unack', 'resolve', 'escalate']),
    user,
    as: person.optional(),
    note: note.optional(),
    toStep: z.number().int().min(1).max(100).optional(),
    /** Asked through `svc console`: recorded as `via`, with `actor` (the signed-in identity) as actor and `by`. */
    via: z.literal('console').optional(),
    actor: z.string().regex(ACTOR_PATTERN).optional(),
  }).refine((r) => (r.actor === undefined) === (r.via === undefined), 'actor and via go together'),
  z.strictObject({
    op: z.literal('override.add'),
    schedule: id,
    person,
    agent: id.optional(),
    fromMs: z.number().int().nonnegative(),
    toMs: z.number().int().positive(),
    user,
  }).refine((r) => r.toMs > r.fromMs, '--to must be after --from'),
  z.strictObject({ op: z.literal('override.rm'), id: z.string().regex(/^o[a-z0-9]{1,40}$/), user }),
] as const;

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
  | { ok: true; op: 'override.rm'; id: string };
