/**
 * The page notifier (contract §17.4): drains the store's outbox of page notifications into the
 * agents' channels, at least once. A notification is claimed with a lease (the store cancels an
 * escalation whose page was acknowledged first, in the claim's transaction), looked at once more just
 * before its send (an ack that committed since the claim cancels it then, audited), handed to its channel
 * with its deliveryId — the same on every retry and every later claim, so the file channel writes it
 * once and other receivers de-duplicate — and its outcome recorded with a `message.delivered` row.
 * A retryable failure is tried again later, as patiently as an event's message (decideNoticeRetry):
 * `maxAttempts` quick tries, then rounds until `store.deliveryWindow` after it was queued. Refused
 * outright, or still failing at the window's end, it is given up with a `message.failed` row — not
 * dead-lettered: the page escalates to its next step, and a replay would page again.
 *
 * Besides its passes over the outbox, it takes notifications handed to it already claimed (`handOff`:
 * a freshly opened page's first round, claimed in the transaction that opened the page) and sends
 * them at once, the same way — with the last look too: the page is visible (/pages, the console) from
 * its commit, and an ack that commits before the first send stops it, as §17.4 promises for every
 * round. That look costs a reader round trip in front of a page's first message (docs/performance.md).
 */
import type { DispatchConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { SignalScope } from '../../core/deadline.js';
import { signalScope } from '../../core/deadline.js';
import type { AgentLog } from '../../logs/agent-log.js';
import type { ClaimOnCommit, ClaimedNotification, NotificationOutcome } from '../../store/oncall-store.js';
import type { PageNotification } from '../../oncall/page.js';
import { CHANNEL_TARGET } from '../../oncall/page.js';
import type { Store } from '../../store/store.js';
import type { AckLinks, Channel, OutboundMessage } from '../channels/channel.js';
import { decideNoticeRetry } from '../dispatch/delivery-state.js';
import type { ChannelOutcome } from '../dispatch/handle-event.js';
import { pageMessageOf } from './page-message.js';
import { pageMessageText } from '../../oncall/page-text.js';

export interface NotifierAgent {
  id: string;
  channels: readonly Channel[];
  log: AgentLog;
  dispatch: DispatchConfig;
}

export interface PageNotifierDeps {
  store: Store;
  clock: Clock;
  owner: string;
  agents: ReadonlyMap<string, NotifierAgent>;
  channelOutcome: ChannelOutcome;
  /** store.deliveryWindow: how long after it was queued a failing notification is still tried (the dispatcher's own window). */
  deliveryWindowMs: number;
  /** How long a claimed notification stays with this sender (default 60 s). */
  leaseMs?: number;
  batch?: number;
  /** A person's one-time links to a page's incarnation (§18.6); absent or null when the agent has no ack source. */
  links?: (agentId: string, pageId: string, person: string, incarnation: number) => AckLinks | null;
  /** The zone a person of an agent reads times in (§24.5: oncall/person-zone.ts; `-`, a channel's own recipient); default UTC. */
  zone?: (agentId: string, person: string) => string;
  /** A hand-off that failed (its claims return to the outbox when their lease ends). */
  onError?: (err: unknown) => void;
}

/** Only a firing page's messages to a person carry links: a channel target is nobody's to answer. */
function linksFor(deps: PageNotifierDeps, n: PageNotification): AckLinks | null {
  if (deps.links === undefined || n.pageId === null || n.status !== 'firing' || n.kind === 'notify' || n.person === CHANNEL_TARGET) return null;
  return deps.links(n.agentId, n.pageId, n.person, n.incarnation ?? 0);
}

/**
 * The message a notification becomes for its channel: a page message (§24.1) rendered for its reader
 * now — their zone (§24.5), their links; a row stored before `message` existed sends its stored text.
 */
export function outboundOf(n: PageNotification, attempt: number, links: AckLinks | null, zone: string): OutboundMessage {
  const message: OutboundMessage = { eventId: n.eventId, agentId: n.agentId, severity: n.severity, status: n.status, title: n.title,
    text: n.text, triagedBy: 'oncall', deliveryId: n.deliveryId, attempt, ...(n.to === null ? {} : { to: n.to }),
    ...(n.pageId === null ? {} : { pageId: n.pageId, pageKind: n.kind }) };
  if (links !== null) message.links = links;
  if (n.message !== undefined) Object.assign(message, { page: n.message, zone, text: pageMessageText(n.message, zone, links) });
  return message;
}

/** What one pass over the outbox did: how many notifications it claimed, and whether that was a whole batch (more may wait). */
export interface OutboxPass { claimed: number; full: boolean }

/** One pass: claims what is due (one batch), sends it, records the outcomes. */
export type NotifyPass = (signal: AbortSignal) => Promise<OutboxPass>;

export interface PageNotifier {
  /** A pass over the outbox. */
  pass: NotifyPass;
  /** How a plan's notifications are claimed for this sender as they commit (then given to `handOff`). */
  claim: ClaimOnCommit;
  /**
   * Sends notifications claimed for this sender by the transaction that opened their page (`claim`),
   * now, without waiting for a pass: call it as that commit answers. Each still has its last look (an
   * ack may commit in between). Resolves once each has been handed to its channel and its outcome given
   * to the store — before that write commits, so what the caller writes next shares its commit. Never
   * rejects (errors go to `onError`).
   */
  handOff(claimed: readonly ClaimedNotification[]): Promise<void>;
  /** Settles when the sends under way now (passes and hand-offs) have finished: a reload's old channels are then unused. */
  settled(): Promise<void>;
  /** Aborts the hand-offs under way (their claims return to the outbox when the lease ends) and waits for them. */
  close(): Promise<void>;
}

export function createPageNotifier(deps: PageNotifierDeps): PageNotifier {
  const { store, clock } = deps;
  const leaseMs = deps.leaseMs ?? 60_000;
  const stop = new AbortController();
  // Hand-offs run side by side, each batch's sends with signals of their own under one listener on `stop`.
  const handOffSignals = signalScope(stop.signal);
  const handingOff = new Set<Promise<void>>();
  /** Every batch being sent (not yet recorded), by a pass or a hand-off: what `settled` waits for. */
  const sending = new Set<Promise<unknown>>();
  const tracked = <T>(p: Promise<T>): Promise<T> => {
    sending.add(p);
    void p.then(() => sending.delete(p), () => sending.delete(p));
    return p;
  };

  /** Null: not sent — the page moved on since the claim (cancelled, audited by the store) or the claim was lost. */
  async function sendOne(c: ClaimedNotification, signal: AbortSignal): Promise<NotificationOutcome | null> {
    const n = c.notification;
    const base = { deliveryId: n.deliveryId, owner: c.owner, attempt: c.attempt };
    // The last look, just before the hand-off: an ack that committed after the claim stops an escalation here (§17.4).
    const check = await store.oncall.confirmSend(base, clock.now());
    if (check !== 'send') {
      deps.agents.get(n.agentId)?.log.write('info', 'page.notice-cancelled', { pageId: n.pageId, deliveryId: n.deliveryId, kind: n.kind,
        outcome: check });
      return null;
    }
    const agent = deps.agents.get(n.agentId);
    const channel = agent?.channels.find((ch) => ch.id === n.channelId);
    if (agent === undefined || channel === undefined) {
      return { ...base, outcome: 'failed', error: `channel ${n.channelId} of agent ${n.agentId} is not configured`, audit: [] };
    }
    const message = outboundOf(n, c.attempt, linksFor(deps, n), deps.zone?.(n.agentId, n.person) ?? 'UTC');
    if (channel.updatesPageMessages === true && n.pageId !== null) {
      const earlier = pageMessageOf(await store.oncall.pageTimeline(n.pageId), channel.id, n.person, channel.pageMessageKeys);
      if (earlier !== null) message.pageMessage = earlier;
    }
    const result = await channel.send(message, signal);
    const actor = `agent:${agent.id}`;
    if (result.ok) {
      deps.channelOutcome(agent.id, channel.id, 'delivered');
      agent.log.write('info', 'page.delivered', { pageId: n.pageId, eventId: n.eventId, channelId: channel.id, to: n.to, deliveryId: n.deliveryId,
        attempt: c.attempt, outcome: 'delivered' });
      // A vendor's receipt (§21.3) is kept with the page, in the write that records this outcome.
      const receipt = result.receipt === undefined || n.pageId === null ? {} : { receipt: { receipt: result.receipt.id, agentId: agent.id,
        pageId: n.pageId, channelId: channel.id, person: n.person, deliveryId: n.deliveryId, sentAtMs: clock.now(), expiresAtMs: result.receipt.expiresAtMs } };
      return { ...base, outcome: 'delivered', ...receipt, audit: [{ kind: 'message.delivered', actor, agentId: agent.id, data: { eventId: n.eventId,
        pageId: n.pageId, channelId: channel.id, channelType: channel.type, deliveryId: n.deliveryId, attempt: c.attempt, person: n.person,
        severity: n.severity, ...result.detail } }] };
    }
    deps.channelOutcome(agent.id, channel.id, 'failed');
    const error = `channel ${channel.id}: ${result.error}`;
    const maxAttempts = channel.maxAttempts ?? agent.dispatch.maxAttempts;
    const next = result.retryable
      ? decideNoticeRetry({ attempt: c.attempt, maxAttempts, queuedAtMs: c.queuedAtMs, nowMs: clock.now(), windowMs: deps.deliveryWindowMs,
        policy: agent.dispatch, ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }) })
      : { giveUp: true as const };
    if ('retryAtMs' in next) {
      agent.log.write('warn', 'page.delivery-retry', { pageId: n.pageId, deliveryId: n.deliveryId, attempt: c.attempt, error: result.error });
      return { ...base, outcome: 'retry', error, retryAtMs: next.retryAtMs, audit: [] };
    }
    agent.log.write('error', 'page.delivery-failed', { pageId: n.pageId, deliveryId: n.deliveryId, attempt: c.attempt, error: result.error });
    return { ...base, outcome: 'failed', error, audit: [{ kind: 'message.failed', actor, agentId: agent.id, data: { eventId: n.eventId,
      pageId: n.pageId, channelId: channel.id, deliveryId: n.deliveryId, attempts: c.attempt, error } }] };
  }

  /** Sends a claimed batch at once; resolves with the record of its outcomes under way (one commit for the batch). */
  async function sendAll(claimed: readonly ClaimedNotification[], scope: SignalScope): Promise<{ recorded: Promise<unknown> }> {
    // A signal per send, not one shared by all: each send listens to its own (see signalScope).
    const outcomes = (await Promise.all(claimed.map(async (c) => {
      const own = scope.signal();
      try {
        return await sendOne(c, own.signal);
      } finally {
        own.dispose();
      }
    }))).filter((o): o is NotificationOutcome => o !== null);
    return { recorded: outcomes.length > 0 ? store.oncall.finishNotifications(outcomes, clock.now()) : Promise.resolve() };
  }

  return {
    async pass(signal) {
      const batch = deps.batch ?? 64;
      const claimed = await store.oncall.claimNotifications(deps.owner, clock.now(), leaseMs, batch);
      if (claimed.length === 0) return { claimed: 0, full: false };
      const scope = signalScope(signal);
      try {
        const sent = await tracked(sendAll(claimed, scope));
        await sent.recorded;
      } finally {
        scope.dispose();
      }
      return { claimed: claimed.length, full: claimed.length >= batch };
    },
    claim: { owner: deps.owner, leaseMs },
    handOff(claimed) {
      if (claimed.length === 0 || stop.signal.aborted) return Promise.resolve();
      const sent = tracked(sendAll(claimed, handOffSignals));
      const recording = sent.then((s) => s.recorded).then(() => undefined, (err: unknown) => deps.onError?.(err))
        .finally(() => handingOff.delete(recording));
      handingOff.add(recording);
      return sent.then(() => undefined, () => undefined);
    },
    settled: () => Promise.allSettled([...sending]).then(() => undefined),
    async close() {
      stop.abort();
      await Promise.all([...handingOff]);
      handOffSignals.dispose();
    },
  };
}
