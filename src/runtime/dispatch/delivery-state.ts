/**
 * A pager's patience, decided here and persisted by the store (the event's `delivery` text): which
 * channels have delivered an event — never sent to again, whatever another channel does — which keep
 * failing and since when, and the triage to send again, so a retry neither calls the model a second
 * time nor pages with different words. Between rounds the event waits in the store until its due
 * time; nothing holds it under a lease meanwhile.
 *
 * A round is one claim: every channel still owed the message gets `maxAttempts` quick tries. A channel
 * that still fails waits in the store — the dispatch back-off's ceiling first, doubling up to
 * RETRY_CEILING_MS — until `deliveryWindowMs` after its first failure; the last round falls on the
 * window's end, and if it fails too the event is dead-lettered with that channel's reason.
 *
 * A page notification (contract §17.4) gets the same patience, counted from when it was queued:
 * `decideNoticeRetry`. It is not dead-lettered when that ends — the page escalates to its next step.
 */
import type { BackoffPolicy } from '../../core/backoff.js';
import { backoffMs } from '../../core/backoff.js';
import type { TriageDecision } from '../providers/provider.js';
import type { DeadLetterReason } from './dead-letter-reasons.js';

/** Longest wait in the store between two rounds: a channel that comes back is tried within 5 minutes. */
export const RETRY_CEILING_MS = 5 * 60_000;

export type ChannelState =
  | { delivered: true }
  | { delivered: false; failingSinceMs: number; tries: number; error: string };

export interface DeliveryState {
  /** Rounds that ended without every channel delivered. */
  rounds: number;
  /** The triage of the first round, sent again by later ones. */
  decision?: TriageDecision;
  channels: Record<string, ChannelState>;
}

/** What one round did on one channel. */
export type RoundResult =
  | { channelId: string; delivered: true }
  | { channelId: string; delivered: false; reason: Extract<DeadLetterReason, 'delivery-failed' | 'delivery-rejected'>; error: string; tries: number };

export type Verdict =
  | { outcome: 'processed'; state: DeliveryState }
  | { outcome: 'retry'; dueMs: number; state: DeliveryState }
  | { outcome: 'dead-lettered'; reason: DeadLetterReason; error: string; attempts: number; state: DeliveryState };

const EMPTY: DeliveryState = { rounds: 0, channels: {} };

/** The stored text back as a state; text this svc did not write (or none) is a fresh start. */
export function parseDeliveryState(text: string | null): DeliveryState {
  if (text === null) return { ...EMPTY, channels: {} };
  try {
    const value = JSON.parse(text) as Partial<DeliveryState> | null;
    if (typeof value !== 'object' || value === null || typeof value.channels !== 'object' || value.channels === null) {
      return { ...EMPTY, channels: {} };
    }
    return { rounds: typeof value.rounds === 'number' ? value.rounds : 0, decision: value.decision, channels: { ...value.channels } };
  } catch {
    return { ...EMPTY, channels: {} };
  }
}

export function deliveryStateText(state: DeliveryState): string {
  return JSON.stringify(state);
}

export function isDelivered(state: DeliveryState, channelId: string): boolean {
  return state.channels[channelId]?.delivered === true;
}

/**
 * The outcome of a round at `nowMs`: processed once every channel delivered; dead-lettered when a
 * channel refused the message or its window is over; otherwise back to the store until the next round.
 */
export function decideRound(before: DeliveryState, results: readonly RoundResult[], nowMs: number, windowMs: number,
  policy: BackoffPolicy): Verdict {
  const channels: Record<string, ChannelState> = { ...before.channels };
  for (const r of results) {
    if (r.delivered) {
      channels[r.channelId] = { delivered: true };
      continue;
    }
    const prev = channels[r.channelId];
    const since = prev !== undefined && !prev.delivered ? prev.failingSinceMs : nowMs;
    const tries = (prev !== undefined && !prev.delivered ? prev.tries : 0) + r.tries;
    channels[r.channelId] = { delivered: false, failingSinceMs: since, tries, error: r.error };
  }
  const failed = results.filter((r): r is Extract<RoundResult, { delivered: false }> => !r.delivered);
  if (failed.length === 0) return { outcome: 'processed', state: { rounds: before.rounds, decision: before.decision, channels } };

  const giveUp = failed.find((r) => r.reason === 'delivery-rejected')
    ?? failed.find((r) => nowMs >= windowEnd(channels[r.channelId], windowMs));
  if (giveUp !== undefined) {
    const state = channels[giveUp.channelId] as Extract<ChannelState, { delivered: false }>;
    // What a replay starts from: the channels that delivered stay delivered; the failing ones and the
    // triage start afresh.
    const kept = Object.fromEntries(Object.entries(channels).filter(([, c]) => c.delivered));
    return { outcome: 'dead-lettered', reason: giveUp.reason, error: giveUp.error, attempts: state.tries,
      state: { rounds: 0, channels: kept } };
  }
  const rounds = before.rounds + 1;
  const wait = roundWaitMs(policy, rounds);
  const firstEnd = Math.min(...failed.map((r) => windowEnd(channels[r.channelId], windowMs)));
  return { outcome: 'retry', dueMs: Math.min(nowMs + wait, firstEnd), state: { rounds, decision: before.decision, channels } };
}

/**
 * The wait in the store after round `round` (from 1) failed: the dispatch back-off's ceiling, doubling
 * up to RETRY_CEILING_MS (or the policy's own ceiling when that is longer); a longer Retry-After wins.
 */
function roundWaitMs(policy: BackoffPolicy, round: number, retryAfterMs?: number): number {
  return backoffMs({ initialBackoffMs: policy.maxBackoffMs, maxBackoffMs: Math.max(policy.maxBackoffMs, RETRY_CEILING_MS) }, round, retryAfterMs);
}

/** A page notification's try that failed retryably, and what the pager may spend on it. */
export interface NoticeTry {
  /** The try that failed, from 1 (the outbox counts every claim). */
  attempt: number;
  /** Quick tries before the waits between rounds (the channel's or the agent's `maxAttempts`). */
  maxAttempts: number;
  /** When the notification was queued: its window starts there. */
  queuedAtMs: number;
  nowMs: number;
  /** store.deliveryWindow; 0 gives up after the quick tries. */
  windowMs: number;
  policy: BackoffPolicy;
  /** The receiver's Retry-After, when it sent one. */
  retryAfterMs?: number;
}

export type NoticeRetry = { retryAtMs: number } | { giveUp: true };

/**
 * When a page notification that failed retryably is tried again (§17.4: at least once, like every
 * message): the quick back-off for its first `maxAttempts` tries, then rounds as an event's, the last
 * falling on the end of the window that started when it was queued; at or past that end, never.
 * A refused message is not asked about: it is given up at once.
 */
export function decideNoticeRetry(t: NoticeTry): NoticeRetry {
  if (t.attempt < t.maxAttempts) return { retryAtMs: t.nowMs + backoffMs(t.policy, t.attempt, t.retryAfterMs) };
  const end = t.queuedAtMs + t.windowMs;
  if (t.nowMs >= end) return { giveUp: true };
  return { retryAtMs: Math.min(t.nowMs + roundWaitMs(t.policy, t.attempt - t.maxAttempts + 1, t.retryAfterMs), end) };
}

function windowEnd(state: ChannelState | undefined, windowMs: number): number {
  return state === undefined || state.delivered ? Infinity : state.failingSinceMs + windowMs;
}
