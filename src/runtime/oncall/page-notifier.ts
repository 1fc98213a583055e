/**
 * The page notifier (contract §17.4): drains the store's outbox of page notifications into the
 * agents' channels, at least once, on a loop of its own — apart from the timer loop, so a channel that
 * never answers delays no page's timers.
 *
 * - **Claims** come as sending slots free up (at most `maxInFlight` sends at once, `maxPerChannel` to
 *   one channel: a channel that never answers fills its own slots, and the claims pass over it while
 *   the other channels' messages go), never waiting for a batch's slowest send; the store hands out one page's messages to one channel in order (an earlier
 *   one delivered or given up first) and cancels an escalation whose page was acknowledged in the
 *   claim's transaction. A row it cannot decode it sets aside (`onQuarantined`: logged and counted).
 * - **A send** has a deadline of its own (`sendTimeoutMs`, under the claim's lease) besides its
 *   channel's, and takes the last look just before the wire: the channel calls the gate right before
 *   it commits the message (channel.ts WireGate), the store holds the page's fence from that look
 *   until the bytes are with the kernel, and an ack commits either before the look (the notice is
 *   cancelled, audited `page.notice-cancelled`) or after the message is out. A slow first call (a
 *   Slack DM to open) comes before the look, so it cannot carry an escalation past an ack.
 * - **Outcomes** are recorded with a `message.delivered` or `message.failed` row; those finishing
 *   together share a commit. A retryable failure is tried again later, as patiently as an event's
 *   message (decideNoticeRetry): `maxAttempts` quick tries, then rounds until `store.deliveryWindow`
 *   after it was queued; refused outright, or still failing then, it is given up — not dead-lettered:
 *   the page escalates to its next step, and a replay would page again.
 *
 * Besides the outbox, it takes notifications handed to it already claimed (`handOff`: a freshly opened
 * page's first round, claimed in the transaction that opened the page) and sends them at once, the
 * same way, last look included: the page is visible (/pages, the console) from its commit.
 */
import type { DispatchConfig } from '../../config/schema.js';
import { errorText } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { timerSlot } from '../../core/timer-slot.js';
import type { SignalScope } from '../../core/deadline.js';
import { raceDeadline, signalScope, withDeadline } from '../../core/deadline.js';
import type { AgentLog } from '../../logs/agent-log.js';
import type { ChannelRef, ChannelRoom, ClaimOnCommit, ClaimedNotification, NotificationOutcome, Quarantined, SendCheck } from '../../store/oncall-store.js';
import type { PageNotification } from '../../oncall/page.js';
import { CHANNEL_TARGET } from '../../oncall/page.js';
import type { Store } from '../../store/store.js';
import type { AckLinks, Channel, DeliveryResult, OutboundMessage, WireGate } from '../channels/channel.js';
import { NOT_SENT } from '../channels/channel.js';
import { decideNoticeRetry } from '../dispatch/delivery-state.js';
import type { ChannelOutcome } from '../dispatch/handle-event.js';
import { takenBy } from '../dispatch/handle-event.js';
import type { LoopHealth } from './loop-health.js';
import { createLoopHealth } from './loop-health.js';
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
  /** Sends under way at once, at most (default 32); a claim takes no more than the free slots. */
  maxInFlight?: number;
  /**
   * Sends under way to one channel of one agent, at most (default a quarter of `maxInFlight`): a
   * channel that never answers fills its own slots, and the claims pass over it while the others go.
   */
  maxPerChannel?: number;
  /** How long one send may take, whatever its channel's own deadline (at most, and by default, half the lease: the claim still holds when it ends). */
  sendTimeoutMs?: number;
  /** How often the outbox is looked at when nothing wakes the sender (default 200 ms). */
  pollMs?: number;
  /** A person's one-time links to a page's incarnation (§18.6); absent or null when the agent has no ack source. */
  links?: (agentId: string, pageId: string, person: string, incarnation: number) => AckLinks | null;
  /** The zone a person of an agent reads times in (§24.5: oncall/person-zone.ts; `-`, a channel's own recipient); default UTC. */
  zone?: (agentId: string, person: string) => string;
  /** An outbox row set aside because it cannot be decoded (the store audited it). */
  onQuarantined?: (q: Quarantined) => void;
  /** A claim or a record that failed (claims return to the outbox when their lease ends). */
  onError?: (err: unknown) => void;
}

/** What one pass over the outbox did: how many notifications it claimed, and whether that was every free slot (more may wait). */
export interface OutboxPass { claimed: number; full: boolean }

export interface PageNotifier {
  /** Starts the sender's own loop: it claims as slots free up and whenever `wake` is called. */
  start(): void;
  /** Notifications were committed: look at the outbox now rather than at the next poll. */
  wake(): void;
  /**
   * One claim of the outbox (up to the free slots) and its sends; resolves once they are all recorded.
   * The loop does not wait for them; a caller that wants to see one pass through (a test, a tool) does.
   */
  pass(): Promise<OutboxPass>;
  /** How a plan's notifications are claimed for this sender as they commit (then given to `handOff`). */
  claim: ClaimOnCommit;
  /**
   * Sends notifications claimed for this sender by the transaction that opened their page (`claim`),
   * now, without waiting for a pass. Each still has its last look (an ack may commit in between).
   * Resolves once each has been handed to its channel and its outcome given to the store — before that
   * write commits, so what the caller writes next shares its commit. Never rejects (errors go to `onError`).
   */
  handOff(claimed: readonly ClaimedNotification[]): Promise<void>;
  /** Settles when the sends under way now (passes and hand-offs) have finished: a reload's old channels are then unused. */
  settled(): Promise<void>;
  /** Null while the sender's loop does its work; else why not (readiness). */
  problem(): string | null;
  /** Stops the loop, aborts the sends under way (their claims return to the outbox when the lease ends) and waits for them. */
  close(): Promise<void>;
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

export function createPageNotifier(deps: PageNotifierDeps): PageNotifier {
  const { store, clock } = deps;
  const leaseMs = deps.leaseMs ?? 60_000;
  const maxInFlight = deps.maxInFlight ?? 32;
  const maxPerChannel = deps.maxPerChannel ?? Math.max(1, Math.floor(maxInFlight / 4));
  // A send that outlived its claim's lease could be handed out again while it is still under way.
  const sendTimeoutMs = Math.min(deps.sendTimeoutMs ?? Infinity, Math.floor(leaseMs / 2));
  const pollMs = deps.pollMs ?? 200;
  const onError = (err: unknown): void => deps.onError?.(err);
  const stop = new AbortController();
  // Every send listens to a signal of its own under one listener on `stop`.
  const scope: SignalScope = signalScope(stop.signal);
  const health: LoopHealth = createLoopHealth('page sender', clock);
  /** Sends under way (claimed or handed off, not yet recorded), in all and by agent and channel. */
  let inFlight = 0;
  const perChannel = new Map<string, { ref: ChannelRef; count: number }>();
  const channelKey = (agentId: string, channelId: string): string => `${agentId}\u0000${channelId}`;
  const room = (): ChannelRoom => ({ max: maxPerChannel, busy: [...perChannel.values()].map((c) => ({ ...c.ref, count: c.count })) });
  /** Every send under way, until its channel answered: what `settled` waits for. */
  const sending = new Set<Promise<unknown>>();
  /** Every send under way, until its outcome was recorded: what `close` waits for. */
  const recording = new Set<Promise<unknown>>();
  let claiming: Promise<unknown> | null = null;
  let again = false;
  let started = false;

  // Outcomes finishing together share one write (and one commit).
  let queued: Array<{ outcome: NotificationOutcome; done: (err: unknown) => void }> = [];
  let writing: Promise<void> | null = null;
  const flush = (): void => {
    if (writing !== null || queued.length === 0) return;
    const batch = queued;
    queued = [];
    writing = store.oncall.finishNotifications(batch.map((b) => b.outcome), clock.now()).then(
      () => { for (const b of batch) b.done(null); },
      (err: unknown) => { for (const b of batch) b.done(err); },
    ).finally(() => {
      writing = null;
      flush();
    });
  };
  const record = (outcome: NotificationOutcome): Promise<void> => new Promise((resolve, reject) => {
    queued.push({ outcome, done: (err) => (err === null ? resolve() : reject(err instanceof Error ? err : new Error(errorText(err)))) });
    queueMicrotask(flush);
  });

  /** The last look, as the channel's gate: the store's held look, released once the channel's bytes are out. */
  function gateFor(c: ClaimedNotification): { gate: WireGate; look(): SendCheck | null; holding(): boolean; settle(): Promise<void> } {
    const n = c.notification;
    let look: SendCheck | null = null;
    let release: (() => Promise<void>) | null = null;
    let released: Promise<void> = Promise.resolve();
    return {
      gate: {
        // Each part of a message that shows (Slack's edit, then its thread reply) looks again.
        async enter() {
          if (look === 'cancelled' || look === 'lost') return false;
          const hold = await store.oncall.holdSend({ deliveryId: n.deliveryId, pageId: n.pageId, owner: c.owner, attempt: c.attempt }, clock.now());
          look = hold.check;
          if (hold.check === 'send') release = () => hold.release();
          return look === 'send';
        },
        leave() {
          const r = release;
          release = null;
          if (r !== null) released = r().catch(onError);
        },
      },
      look: () => look,
      holding: () => release !== null,
      // A channel that returned without leaving (it must not, but a hold is never left behind).
      settle: () => {
        if (release !== null) released = release().catch(onError);
        release = null;
        return released;
      },
    };
  }

  /** Null: not sent — the page moved on since the claim (cancelled, audited by the store) or the claim was lost. */
  async function sendOne(c: ClaimedNotification, signal: AbortSignal): Promise<NotificationOutcome | null> {
    const n = c.notification;
    const base = { deliveryId: n.deliveryId, owner: c.owner, attempt: c.attempt };
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
    const last = gateFor(c);
    // The send's own deadline: a channel that never answers holds a slot this long at most.
    let op: Promise<DeliveryResult> = Promise.resolve(NOT_SENT);
    const sent = await withDeadline(sendTimeoutMs, clock, signal, (s) => (op = channel.send(message, s, last.gate)));
    // Past its deadline, a channel still inside the gate is given the time to give its bytes up (its
    // signal aborted) before the hold goes: released under a write still in progress, an ack could
    // commit before it.
    if (last.holding()) await raceDeadline(sendTimeoutMs, clock, op);
    await last.settle();
    const check = last.look();
    if (check === 'cancelled' || check === 'lost') {
      agent.log.write('info', 'page.notice-cancelled', { pageId: n.pageId, deliveryId: n.deliveryId, kind: n.kind, outcome: check });
      return null;
    }
    const result: DeliveryResult = sent.ok ? sent.value
      : { ok: false, retryable: true, error: sent.why === 'timeout' ? `no answer within ${sendTimeoutMs} ms` : 'aborted' };
    const actor = `agent:${agent.id}`;
    if (result.ok) {
      const taken = takenBy(result);
      deps.channelOutcome(agent.id, channel.id, taken.outcome);
      agent.log.write('info', 'page.delivered', { pageId: n.pageId, eventId: n.eventId, channelId: channel.id, to: n.to, deliveryId: n.deliveryId,
        attempt: c.attempt, outcome: taken.outcome });
      // A vendor's receipt (§21.3) is kept with the page, in the write that records this outcome.
      const receipt = result.receipt === undefined || n.pageId === null ? {} : { receipt: { receipt: result.receipt.id, agentId: agent.id,
        pageId: n.pageId, channelId: channel.id, person: n.person, deliveryId: n.deliveryId, sentAtMs: clock.now(), expiresAtMs: result.receipt.expiresAtMs } };
      return { ...base, outcome: 'delivered', ...receipt, audit: [{ kind: taken.kind, actor, agentId: agent.id, data: { eventId: n.eventId,
        pageId: n.pageId, channelId: channel.id, channelType: channel.type, deliveryId: n.deliveryId, attempt: c.attempt, person: n.person,
        severity: n.severity, ...(result.shadow === true ? { title: n.title, pageKind: n.kind } : {}), ...result.detail } }] };
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

  /**
   * Starts one send; `sent` settles when its channel answered (its outcome queued for the store),
   * `recorded` when that outcome is written. The slot is free again once it is recorded: the store
   * holds a page's next message to the channel until then.
   */
  function startSend(c: ClaimedNotification): { sent: Promise<void>; recorded: Promise<void> } {
    inFlight += 1;
    const key = channelKey(c.notification.agentId, c.notification.channelId);
    const slot = perChannel.get(key) ?? { ref: { agentId: c.notification.agentId, channelId: c.notification.channelId }, count: 0 };
    slot.count += 1;
    perChannel.set(key, slot);
    const own = scope.signal();
    const outcome = sendOne(c, own.signal).finally(() => own.dispose());
    // The record first: its write is queued before a hand-off's caller goes on to its own.
    const recorded = outcome.then((o) => (o === null ? undefined : record(o))).catch(onError).finally(() => {
      inFlight -= 1;
      slot.count -= 1;
      if (slot.count === 0) perChannel.delete(key);
      recording.delete(recorded);
      if (started) kick();
    });
    const sent = outcome.then(() => undefined, () => undefined);
    sending.add(sent);
    void sent.finally(() => sending.delete(sent));
    recording.add(recorded);
    return { sent, recorded };
  }

  /** One claim of the outbox for the free slots; the sends are started, not waited for. */
  async function claimOnce(): Promise<{ claimed: number; full: boolean; recorded: Promise<unknown> }> {
    const free = maxInFlight - inFlight;
    if (free <= 0 || stop.signal.aborted) return { claimed: 0, full: false, recorded: Promise.resolve() };
    const { claimed, quarantined } = await store.oncall.claimNotifications(deps.owner, clock.now(), leaseMs, free, room());
    for (const q of quarantined) {
      const log = q.agentId === null ? undefined : deps.agents.get(q.agentId)?.log;
      log?.write('error', 'page.notice-quarantined', { deliveryId: q.id, pageId: q.pageId, reason: q.reason });
      deps.onQuarantined?.(q);
    }
    const started = claimed.map((c) => startSend(c).recorded);
    return { claimed: claimed.length, full: claimed.length + quarantined.length >= free, recorded: Promise.all(started) };
  }

  const next = timerSlot(clock, stop.signal, run);
  const schedule = (ms: number): void => next.set(ms);

  function run(): void {
    if (claiming !== null) {
      again = true;
      return;
    }
    claiming = claimOnce().then((r) => {
      health.passed();
      again ||= r.full && inFlight < maxInFlight;
    }, (err: unknown) => {
      health.failed(err);
      onError(err);
    }).finally(() => {
      claiming = null;
      const now = again;
      again = false;
      schedule(now ? 0 : pollMs);
    });
  }

  /** Look now (a slot freed up, or notifications were committed), unless a claim is under way: it looks again as it ends. */
  function kick(): void {
    if (stop.signal.aborted) return;
    if (claiming !== null) again = true;
    else schedule(0);
  }

  return {
    start() {
      started = true;
      schedule(0);
    },
    wake: () => { if (started) kick(); },
    async pass() {
      const r = await claimOnce();
      await r.recorded;
      return { claimed: r.claimed, full: r.full };
    },
    claim: { owner: deps.owner, leaseMs },
    handOff(claimed) {
      if (claimed.length === 0 || stop.signal.aborted) return Promise.resolve();
      return Promise.all(claimed.map((c) => startSend(c).sent)).then(() => undefined);
    },
    settled: () => Promise.allSettled([...sending]).then(() => undefined),
    problem: () => (started ? health.problem() : null),
    async close() {
      stop.abort();
      await claiming;
      await Promise.allSettled([...recording]);
      scope.dispose();
    },
  };
}
