/**
 * What a claim of the outbox hands out, decided once for both stores (contract §17.4, §18.4): the due
 * rows are read by the store, this decides, the store writes it in the claim's transaction.
 *
 * - A row whose body cannot be decoded is quarantined (given up, audited), never thrown: the rest of
 *   the batch goes on.
 * - A stale row (an escalation of a page no longer triggered, … oncall/page.ts isStaleNotification)
 *   is cancelled instead of handed out.
 * - No channel gets more than the sender can take of it (`room`): the rest of its rows wait, and the
 *   claim reads further down the outbox so that the other channels' messages still go.
 * - One page's messages to one channel go in order: a row waits while an earlier pending row of its
 *   page and channel is in flight (claimed by a sender) or still to be sent (waiting for a retry, or
 *   handed out by this same claim). PagerDuty never gets `trigger` after `resolve`, Slack never edits
 *   a message it has not posted. An earlier row that is stale and held by nobody does not hold the
 *   later ones back: it will be cancelled, never sent.
 */
import type { PageNotification } from '../oncall/page.js';
import { isStaleNotification } from '../oncall/page.js';
import type { ChannelRef, ChannelRoom, Quarantined } from './oncall-store.js';
import { ROOM_READ_FACTOR } from './oncall-store.js';
import { decodeNotification } from './oncall-rows.js';

/** A due outbox row as read (`seq, delivery_id, page_id, agent_id, kind, attempt, created_ms, body`) with its page's `state`. */
export type DueRow = Record<string, unknown>;
/** A pending row of one of the due rows' pages (`seq, kind, owner, channel_id, body`, its `page_id`). */
export type PendingRow = Record<string, unknown>;

export interface OutboxClaimPlan {
  claim: Array<{ seq: number; notification: PageNotification; attempt: number; createdMs: number }>;
  cancel: number[];
  quarantine: Array<{ seq: number; quarantined: Quarantined }>;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The channel a pending row is for: its column, or for a row written before the column existed its
 * body; null when that cannot be read (it holds nothing back: it will be quarantined).
 */
function channelOf(r: PendingRow): string | null {
  if (typeof r.channel_id === 'string') return r.channel_id;
  const decoded = decodeNotification(r);
  return decoded.ok ? decoded.value.channelId : null;
}

/** The channels the sender has no room left for: a claim passes over their rows in its query. */
export function fullChannels(room: ChannelRoom | undefined): ChannelRef[] {
  if (room === undefined) return [];
  return room.busy.filter((b) => b.count >= room.max).map((b) => ({ agentId: b.agentId, channelId: b.channelId }));
}

/** How many due rows to read for a claim of `limit`: more when some channels may be full. */
export function dueRowsToRead(limit: number, room: ChannelRoom | undefined): number {
  return room === undefined ? limit : Math.min(1000, limit * ROOM_READ_FACTOR);
}

/**
 * `limit`: most to hand out. `room`: what the sender can take of each channel; the rows past it stay
 * where they are (and still hold their page's later messages to that channel back).
 */
export function orderedClaims(due: readonly DueRow[], pendingOfPages: readonly PendingRow[], limit = Infinity, room?: ChannelRoom): OutboxClaimPlan {
  const plan: OutboxClaimPlan = { claim: [], cancel: [], quarantine: [] };
  const taken = new Map<string, number>();
  for (const b of room?.busy ?? []) taken.set(`${b.agentId}\u0000${b.channelId}`, b.count);
  /** Takes a slot of the channel; false when it has none left. */
  const takeSlot = (agentId: string, channelId: string): boolean => {
    if (room === undefined) return true;
    const key = `${agentId}\u0000${channelId}`;
    const used = taken.get(key) ?? 0;
    if (used >= room.max) return false;
    taken.set(key, used + 1);
    return true;
  };
  const stateOf = new Map<string, string | null>();
  for (const r of due) if (typeof r.page_id === 'string') stateOf.set(r.page_id, str(r.state));
  const settledHere = new Set<number>();
  const pendingOf = new Map<string, PendingRow[]>();
  for (const p of pendingOfPages) {
    const pageId = str(p.page_id);
    if (pageId !== null) pendingOf.set(pageId, [...(pendingOf.get(pageId) ?? []), p]);
  }
  /** Whether an earlier pending row of the page holds `seq` back on `channel`. */
  const heldBack = (pageId: string, seq: number, channel: string): boolean => (pendingOf.get(pageId) ?? []).some((p) => {
    const pSeq = Number(p.seq);
    if (pSeq >= seq || settledHere.has(pSeq) || channelOf(p) !== channel) return false;
    const held = p.owner !== null && p.owner !== undefined;
    return held || !isStaleNotification(String(p.kind), stateOf.get(pageId));
  });

  for (const r of due) {
    const seq = Number(r.seq);
    const pageId = str(r.page_id);
    const decoded = decodeNotification(r);
    if (!decoded.ok) {
      settledHere.add(seq);
      plan.quarantine.push({ seq, quarantined: { kind: 'notification', id: String(r.delivery_id), agentId: str(r.agent_id), pageId,
        reason: decoded.reason } });
      continue;
    }
    if (isStaleNotification(String(r.kind), str(r.state))) {
      settledHere.add(seq);
      plan.cancel.push(seq);
      continue;
    }
    if (plan.claim.length >= limit || (pageId !== null && heldBack(pageId, seq, decoded.value.channelId))) continue;
    if (!takeSlot(decoded.value.agentId, decoded.value.channelId)) continue;
    plan.claim.push({ seq, notification: decoded.value, attempt: Number(r.attempt), createdMs: Number(r.created_ms) });
  }
  return plan;
}
