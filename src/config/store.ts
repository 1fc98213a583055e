/**
 * The daemon-wide `store` block of agent.yaml (contract §10): which store, how long a claim lasts
 * without a heartbeat, and how long finished rows are kept. Agents that set it must agree (the loader
 * checks); none setting it means the embedded SQLite file under $SVC_HOME.
 */
import { z } from 'zod';
import { parseDuration } from '../core/duration.js';

/** A claim lasts this long without a heartbeat (renewed every third of it): a dead replica's events move within seconds. */
export const DEFAULT_LEASE_MS = 10_000;
/**
 * How long a fingerprint names the event it came with (contract §9.3: 15 minutes): a delivery with
 * the same fingerprint inside it is a duplicate. A store takes it once, when it opens (open-store.ts).
 */
export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 15 * 60_000;
/** A failing channel is retried this long from its first failure before the event is dead-lettered. */
export const DEFAULT_DELIVERY_WINDOW_MS = 30 * 60_000;
const MAX_DELIVERY_WINDOW_MS = 7 * 86_400_000;

/** Retention is at least an hour: longer than the 15-minute idempotency window, whose fingerprints point at events. */
const duration = z.string().refine((s) => (parseDuration(s) ?? 0) >= 3_600_000, 'must be a duration of at least 1h, like 30d, 12h or 90m');

export const storeBlockSchema = z.strictObject({
  kind: z.enum(['sqlite', 'postgres']).default('sqlite'),
  /** postgres only: a connection URL, normally `${env:SVC_DATABASE_URL}`. */
  url: z.string().min(1).optional(),
  /** How long a claimed event stays with one worker without a heartbeat. */
  leaseMs: z.number().int().min(1_000).max(3_600_000).default(DEFAULT_LEASE_MS),
  /**
   * How long a channel that keeps failing is retried, from its first failure, before the event is
   * dead-lettered (`0s`: after the quick tries of one round). The waits between rounds live in the store.
   */
  deliveryWindow: z.string().refine((s) => { const ms = parseDuration(s); return ms !== null && ms <= MAX_DELIVERY_WINDOW_MS; },
    'must be a duration of at most 7d, like 30m, 2h or 0s').default('30m'),
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

interface DispatchSettings {
  leaseMs: number;
  /** store.deliveryWindow in ms; DEFAULT_DELIVERY_WINDOW_MS when absent (stores opened only to read). */
  deliveryWindowMs?: number;
  /** The idempotency window in ms; DEFAULT_IDEMPOTENCY_WINDOW_MS when absent. */
  idempotencyWindowMs?: number;
}

export type StoreSettings =
  | { kind: 'sqlite'; path: string; retention: RetentionSettings } & DispatchSettings
  | { kind: 'postgres'; url: string; retention: RetentionSettings } & DispatchSettings;

/** The daemon's store from the `store` block the agents agree on (undefined: none sets one). */
export function resolveStore(block: StoreBlock | undefined, dbPath: string): StoreSettings & { idempotencyWindowMs: number } {
  const retention: RetentionSettings = {
    eventsMs: block?.retention?.events === undefined ? null : parseDuration(block.retention.events),
    deadLettersMs: block?.retention?.deadLetters === undefined ? null : parseDuration(block.retention.deadLetters),
  };
  const leaseMs = block?.leaseMs ?? DEFAULT_LEASE_MS;
  const deliveryWindowMs = block === undefined ? DEFAULT_DELIVERY_WINDOW_MS : parseDuration(block.deliveryWindow) ?? DEFAULT_DELIVERY_WINDOW_MS;
  const idempotencyWindowMs = DEFAULT_IDEMPOTENCY_WINDOW_MS;
  if (block?.kind === 'postgres' && block.url !== undefined) return { kind: 'postgres', url: block.url, leaseMs, deliveryWindowMs, idempotencyWindowMs, retention };
  return { kind: 'sqlite', path: dbPath, leaseMs, deliveryWindowMs, idempotencyWindowMs, retention };
}
