/**
 * The on-call part of the store (contract §17.4): pages and their due timers, the outbox of page
 * notifications, schedule overrides, silences and heartbeats. The page planner (oncall/page-plan.ts)
 * decides what an action writes; a store persists that plan in one transaction with its audit rows
 * and notifications, and only onto the page version it was planned from (a racing ack and timer
 * cannot both win). Every implementation passes the on-call cases of test/support/store-contract.ts.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Override, Silence } from '../oncall/oncall-config.js';
import type { PageNotification, PagePlan, PageRecord, PageState } from '../oncall/page.js';
import type { ListedAuditRow, Page, PageQuery } from './store.js';

export type ApplyResult = { ok: true } | { ok: false; reason: 'conflict' };

/** A notification handed to this sender: the claim its outcome must present. */
export interface ClaimedNotification {
  notification: PageNotification;
  owner: string;
  /** 1 for the first hand-off, +1 for every later one (a crashed sender's notification claimed again). */
  attempt: number;
}

export type NotificationOutcome = {
  deliveryId: string;
  owner: string;
  attempt: number;
  audit: NewAuditEntry[];
} & (
  | { outcome: 'delivered' }
  /** Given up: not retried. */
  | { outcome: 'failed'; error: string }
  /** Tried again at `retryAtMs` (with the same deliveryId). */
  | { outcome: 'retry'; retryAtMs: number; error: string }
);

export interface PageFilter { agent?: string; state?: PageState; policy?: string }

export interface StoredOverride extends Override {
  createdAtMs: number;
  createdBy: string;
}

export interface StoredSilence extends Silence {
  /** When it was expired by hand (`svc silence expire`); null otherwise. */
  expiredAtMs: number | null;
}

export interface HeartbeatSeen {
  agentId: string;
  heartbeatId: string;
  lastSeenMs: number;
}

export interface OpenPageCount {
  agentId: string;
  state: Exclude<PageState, 'resolved'>;
  count: number;
}

export interface OncallStore {
  /** Persists a plan (page, audit rows, notifications) in one transaction, or nothing when the page moved on. */
  applyPagePlan(plan: PagePlan, nowMs: number): Promise<ApplyResult>;
  /** Writes notifications that belong to no page (a route's `notify:`) with their audit rows. */
  writeNotifications(notifications: readonly PageNotification[], audit: readonly NewAuditEntry[], nowMs: number): Promise<void>;
  getPage(id: string): Promise<PageRecord | null>;
  /** The open page of an incident key, else the one resolved last; null when the key never paged. */
  findPage(agentId: string, incidentKey: string): Promise<PageRecord | null>;
  /**
   * Claims up to `limit` pages whose due time has come and whose timer nobody holds, for `owner`
   * until `nowMs + leaseMs` (one replica at a time: `FOR UPDATE SKIP LOCKED` on PostgreSQL). A claim
   * is not the fence: the plan applied afterwards is (its page version).
   */
  claimDuePages(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<PageRecord[]>;
  /**
   * Hands out notifications that are due, for `owner` until `nowMs + leaseMs`. In the same
   * transaction, an escalation notification of a page no longer triggered (acknowledged or resolved)
   * is cancelled instead — that transaction is the hand-off to a channel, so nothing of a page's
   * escalation is handed over after its acknowledgement committed (§17.4).
   */
  claimNotifications(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedNotification[]>;
  /** Records outcomes while the claim still holds (same owner and attempt); returns how many applied. */
  finishNotifications(outcomes: readonly NotificationOutcome[], nowMs: number): Promise<number>;
  listPages(query: PageQuery, filter: PageFilter): Promise<Page<PageRecord>>;
  /** The page's audit rows in seq order (§17.9 timeline). */
  pageTimeline(pageId: string): Promise<ListedAuditRow[]>;
  openPageCounts(): Promise<OpenPageCount[]>;

  addOverride(override: StoredOverride, nowMs: number): Promise<void>;
  /** Removes an override; false when there is none with that id. */
  removeOverride(id: string, actor: string, nowMs: number): Promise<StoredOverride | null>;
  /** Overrides of the agent (all agents when null) that end after `endsAfterMs`. */
  listOverrides(agentId: string | null, endsAfterMs: number): Promise<StoredOverride[]>;

  addSilence(silence: Silence, nowMs: number): Promise<void>;
  expireSilence(id: string, actor: string, nowMs: number): Promise<StoredSilence | null>;
  /** Silences live at `nowMs` or ended after `endedAfterMs`. */
  listSilences(endedAfterMs: number): Promise<StoredSilence[]>;

  /** Records that matching deliveries arrived (duplicates too, §17.7). */
  touchHeartbeats(agentId: string, heartbeatIds: readonly string[], nowMs: number): Promise<void>;
  listHeartbeats(): Promise<HeartbeatSeen[]>;
}
