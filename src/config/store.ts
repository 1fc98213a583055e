/**
 * The daemon-wide `store` block of agent.yaml (contract §10): which store, how long a claim lasts
 * without a heartbeat, and how long finished rows are kept. Agents that set it must agree (the loader
 * checks); none setting it means the embedded SQLite file under $SVC_HOME.
 */
import { z } from 'zod';
import { parseDuration } from '../core/duration.js';

/** Retention is at least an hour: longer than the 15-minute idempotency window, whose fingerprints point at events. */
const duration = z.string().refine((s) => (parseDuration(s) ?? 0) >= 3_600_000, 'must be a duration of at least 1h, like 30d, 12h or 90m');

export const storeBlockSchema = z.strictObject({
  kind: z.enum(['sqlite', 'postgres']).default('sqlite'),
  /** postgres only: a connection URL, normally `${env:SVC_DATABASE_URL}`. */
  url: z.string().min(1).optional(),
  /** How long a claimed event stays with one worker without a heartbeat. */
  leaseMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
  /** The audit chain is never pruned. */
  retention: z.strictObject({ events: duration.optional(), deadLetters: duration.optional() }).optional(),
}).superRefine((store, ctx) => {
  if (store.kind === 'postgres' && store.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'required key missing (kind postgres)' });
  if (store.kind === 'sqlite' && store.url !== undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'applies to kind postgres only' });
});
export type StoreBlock = z.infer<typeof storeBlockSchema>;

export interface RetentionSettings {
  eventsMs: number | null;
  deadLettersMs: number | null;
}

export type StoreSettings =
  | { kind: 'sqlite'; path: string; leaseMs: number; retention: RetentionSettings }
  | { kind: 'postgres'; url: string; leaseMs: number; retention: RetentionSettings };

/** The daemon's store from the `store` block the agents agree on (undefined: none sets one). */
export function resolveStore(block: StoreBlock | undefined, dbPath: string): StoreSettings {
  const retention: RetentionSettings = {
    eventsMs: block?.retention?.events === undefined ? null : parseDuration(block.retention.events),
    deadLettersMs: block?.retention?.deadLetters === undefined ? null : parseDuration(block.retention.deadLetters),
  };
  const leaseMs = block?.leaseMs ?? 60_000;
  if (block?.kind === 'postgres' && block.url !== undefined) return { kind: 'postgres', url: block.url, leaseMs, retention };
  return { kind: 'sqlite', path: dbPath, leaseMs, retention };
}
