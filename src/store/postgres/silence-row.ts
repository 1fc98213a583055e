/** A silences row as PostgreSQL returns it (bigints as text), decoded: for the on-call store and for ingest (chain-writer.ts). */
import type { SilenceMatcher } from '../../oncall/oncall-config.js';
import type { StoredSilence } from '../oncall-store.js';

export const toSilence = (r: Record<string, unknown>): StoredSilence => ({ id: String(r.id), agentId: typeof r.agent_id === 'string' ? r.agent_id : null,
  matchers: JSON.parse(String(r.matchers)) as SilenceMatcher[], startsAtMs: Number(r.starts_ms), endsAtMs: Number(r.ends_ms), reason: String(r.reason),
  createdBy: String(r.created_by), expiredAtMs: r.expired_ms === null ? null : Number(r.expired_ms) });
