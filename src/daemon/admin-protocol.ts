/**
 * The admin socket's protocol (contract §13: `$SVC_HOME/admin.sock`, the only door for changes). One
 * request per connection: the client writes one JSON object and a newline, the daemon answers one JSON
 * object and a newline, then closes. Requests are validated strictly (unknown keys, wrong types and
 * oversized lists are refused); a request line is at most MAX_REQUEST_BYTES.
 */
import { z } from 'zod';
import type { FileChange } from './config-reload.js';
import type { AgentChanges } from './reload-plan.js';
import { ID_PATTERN } from '../config/schema.js';
import type { OncallAdminResponse } from './admin-oncall-protocol.js';
import { ACTOR_PATTERN, oncallRequestSchemas } from './admin-oncall-protocol.js';

export const MAX_REQUEST_BYTES = 64 * 1024;
/** Most dead-letter ids one replay names. */
export const MAX_REPLAY_IDS = 1000;
/**
 * Most ids of each list a replay answer carries: as many as a request may name, so a replay by ids
 * always hears about every one; `--all` of more letters answers with its counts and the first ids.
 */
export const MAX_ANSWER_IDS = MAX_REPLAY_IDS;

const id = z.string().regex(ID_PATTERN);
/** Dead-letter ids are opaque strings the store made; bounded and printable. */
const deadLetterId = z.string().regex(/^[\x21-\x7e]{1,200}$/);

export const adminRequestSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('ping') }),
  z.strictObject({
    op: z.literal('dlq.replay'),
    ids: z.array(deadLetterId).min(1).max(MAX_REPLAY_IDS).optional(),
    all: z.literal(true).optional(),
    source: id.optional(),
    reason: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/).optional(),
    /** Asked through `svc console`: recorded as `via` in the audit rows, with `actor` as their actor. */
    via: z.literal('console').optional(),
    /** Who asked (the console's signed-in identity); only with `via`. Printable, bounded. */
    actor: z.string().regex(ACTOR_PATTERN).optional(),
  }).refine((r) => (r.ids !== undefined) !== (r.all === true), 'name dead-letter ids or all, not both')
    .refine((r) => (r.actor === undefined) === (r.via === undefined), 'actor and via go together'),
  z.strictObject({
    op: z.literal('backup'),
    /** Absolute path of the new file, as the client resolved it. */
    path: z.string().min(2).max(4096).startsWith('/'),
    force: z.boolean().default(false),
  }),
  /** `svc reload`: load, validate and apply the configuration (config-reload.ts). */
  z.strictObject({ op: z.literal('config.reload') }),
  ...oncallRequestSchemas,
]);
export type AdminRequest = z.input<typeof adminRequestSchema>;
export type ParsedAdminRequest = z.output<typeof adminRequestSchema>;

export type AdminResponse =
  | { ok: true; op: 'ping'; pid: number }
  /** `replayed`/`missing`: the first MAX_ANSWER_IDS ids of each; the counts are of all of them. */
  | { ok: true; op: 'dlq.replay'; replayed: string[]; missing: string[]; replayedCount: number; missingCount: number }
  | { ok: true; op: 'backup'; path: string; bytes: number }
  | { ok: true; op: 'config.reload'; files: FileChange[]; agents: AgentChanges[] }
  | OncallAdminResponse
  | { ok: false; error: string };
