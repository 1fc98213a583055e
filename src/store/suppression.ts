/**
 * Which live silences suppress an event as it is stored (contract §17.8), for both stores' ingest:
 * the decision is the pure silencedBy; this only spares the common case (no live silence) the parse
 * of the payload.
 */
import type { Silence } from '../oncall/oncall-config.js';
import { silencedBy } from '../oncall/silence-match.js';

/** The ids of the silences that together cover every alert of the payload; empty when it is not silenced. */
export function suppressingSilences(live: readonly Silence[], agentId: string, payloadText: string, nowMs: number): string[] {
  if (live.length === 0) return [];
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch {
    return [];
  }
  return silencedBy(live, agentId, payload, nowMs);
}
