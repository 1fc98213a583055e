/**
 * On-call rows as a store returns them (snake_case columns; PostgreSQL's bigints as text), decoded the
 * same way for both stores.
 */
import type { SilenceMatcher } from '../oncall/oncall-config.js';
import type { StoredOverride, StoredSilence } from './oncall-store.js';

export function toStoredOverride(r: Record<string, unknown>): StoredOverride {
  return { id: String(r.id), agentId: String(r.agent_id), scheduleId: String(r.schedule_id), personId: String(r.person_id),
    fromMs: Number(r.from_ms), toMs: Number(r.to_ms), createdAtMs: Number(r.created_ms), createdBy: String(r.created_by) };
}

export function toStoredSilence(r: Record<string, unknown>): StoredSilence {
  return { id: String(r.id), agentId: typeof r.agent_id === 'string' ? r.agent_id : null, matchers: JSON.parse(String(r.matchers)) as SilenceMatcher[],
    startsAtMs: Number(r.starts_ms), endsAtMs: Number(r.ends_ms), reason: String(r.reason), createdBy: String(r.created_by),
    expiredAtMs: r.expired_ms === null || r.expired_ms === undefined ? null : Number(r.expired_ms) };
}
