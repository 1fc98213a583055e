/**
 * The dispatcher (contract §10): waiting work lives in the store, not here. Each agent's lane claims
 * a batch of its oldest events with this replica's owner id and a lease, works them with at most
 * `dispatch.concurrency` at once, and hands each outcome to the committer, which writes outcomes and
 * their audit rows many to a transaction. Memory holds the batch in hand, never the backlog: a
 * million waiting events cost disk, not RSS.
 *
 * Leases: a heartbeat renews every claim in hand at a third of the lease; a claim found lost (taken by
 * another holder after the lease ran out) stops its work, and the store fences off its outcome. An
 * event whose holder crashed, hung or could not write is claimed again once its lease ends — by this
 * process too, without a restart.
 *
 * Wake-ups: ingest wakes the lane of the event it accepted; a poll every `pollMs` catches what no
 * wake-up announces (expired leases, another replica's events, replays, retries whose time has come).
 *
 * Retries: a channel that still fails after its quick tries does not keep the event here. The event
 * goes back to the store with a due time and what the round left (delivery-state.ts), and is claimed
 * again when it is due, by any replica.
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { SourceStats } from '../../metrics/source-stats.js';
import type { ClaimedEvent, ClaimRef, Completion, Store } from '../../store/store.js';
import type { Committer } from './committer.js';
import { createCommitter } from './committer.js';
import type { ChannelOutcome, DispatchAgent } from './handle-event.js';
import { handleEvent, Interrupted } from './handle-event.js';

/** Audit back-pressure (export/backpressure.ts): while closed, the dispatcher starts no new event. */
export interface IntakeGate {
  active(): boolean;
  /** Resolves at once while open; rejects when `signal` aborts. */
  whenOpen(signal: AbortSignal): Promise<void>;
}

export interface DispatchMetrics {
  channelOutcome: ChannelOutcome;
  /** Accepted → delivered, for events that were processed (svc_dispatch_latency_seconds). */
  latency(agentId: string, seconds: number): void;
}

export interface DispatcherDeps {
  store: Store;
  agents: DispatchAgent[];
  clock: Clock;
  /** This run of this replica: `<replica>/<run>`; claims carry it. */
  owner: string;
  leaseMs: number;
  /** How long a failing channel is retried (store.deliveryWindow); the waits between rounds live in the store. */
  deliveryWindowMs: number;
  stats: SourceStats;
  metrics: DispatchMetrics;
  gate?: IntakeGate;
  onError: (err: unknown) => void;
  /** How often idle lanes look for work nobody announced (default 1 s). */
  pollMs?: number;
  /** Events claimed ahead of the workers, per unit of concurrency (default 8). */
  claimAhead?: number;
  /** Payload bytes a lane holds at most (default 8 MiB; at least one event). */
  maxBatchBytes?: number;
}

export interface Dispatcher {
  start(): void;
  /** New work for this agent (or any, when omitted) may be waiting. */
  wake(agentId?: string): void;
  /** Events claimed and not yet committed, all agents. */
  inHand(): number;
  /**
   * A config reload's new build of an agent (same id): events started from now on use it; an event
   * already under way finishes with the agent it started with. Settles when those events have finished
   * (their completions committed or given up): the channels only the old build had are then unused.
   */
  replaceAgent(agent: DispatchAgent): Promise<void>;
  /** Stops claiming, gives back what has not started, waits for work under way; after `timeoutMs` stops it too. */
  drain(timeoutMs: number): Promise<void>;
}

interface Task { claimed: ClaimedEvent; stop: AbortController; done: Promise<void> }

interface Lane {
  agent: DispatchAgent;
  waiting: ClaimedEvent[];
  running: Map<string, Task>;
  claiming: boolean;
  /** A wake-up arrived, or the last claim came back full: the store may hold more. */
  maybeMore: boolean;
  gateWait: boolean;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const { store, clock, stats } = deps;
  const pollMs = deps.pollMs ?? 1000;
  const claimAhead = deps.claimAhead ?? 8;
  const maxBatchBytes = deps.maxBatchBytes ?? 8 * 1024 * 1024;
  const committer: Committer = createCommitter(store, clock);
  const lanes = new Map<string, Lane>(deps.agents.map((agent) => [agent.id, {
    agent, waiting: [], running: new Map(), claiming: false, maybeMore: true, gateWait: false }]));
  const stopping = new AbortController();
  const active = new Set<Promise<void>>();
  let started = false;
  let pollTimer: TimerHandle | null = null;
  let beatTimer: TimerHandle | null = null;

  const track = (p: Promise<void>): void => {
    active.add(p);
    void p.finally(() => active.delete(p));
  };

  const capacity = (lane: Lane): number => lane.agent.dispatch.concurrency * claimAhead;

  function pump(lane: Lane): void {
    if (stopping.signal.aborted) return;
    const gateClosed = deps.gate?.active() ?? false;
    if (gateClosed) {
      if (!lane.gateWait && deps.gate) {
        lane.gateWait = true;
        deps.gate.whenOpen(stopping.signal).then(() => { lane.gateWait = false; pump(lane); }, () => { lane.gateWait = false; });
      }
      return;
    }
    while (lane.running.size < lane.agent.dispatch.concurrency && lane.waiting.length > 0) {
      start(lane, lane.waiting.shift() as ClaimedEvent);
    }
    const room = capacity(lane) - lane.waiting.length - lane.running.size;
    if (!lane.claiming && lane.maybeMore && room > 0 && lane.waiting.length < lane.agent.dispatch.concurrency) {
      lane.claiming = true;
      lane.maybeMore = false;
      track(claim(lane, room));
    }
  }

  async function claim(lane: Lane, room: number): Promise<void> {
    try {
      const got = await store.claimEvents({ owner: deps.owner, agentId: lane.agent.id, limit: room, maxBytes: maxBatchBytes,
        leaseMs: deps.leaseMs, nowMs: clock.now() });
      if (got.length === room) lane.maybeMore = true;
      if (stopping.signal.aborted) {
        await release(got);
        return;
      }
      lane.waiting.push(...got);
    } catch (err) {
      deps.onError(err); // the store is unreachable or failing: the next poll tries again
    } finally {
      lane.claiming = false;
    }
    pump(lane);
  }

  function start(lane: Lane, claimed: ClaimedEvent): void {
    const stop = new AbortController();
    const work = (async () => {
      let completion: Completion;
      try {
        const decided = await handleEvent(lane.agent, claimed, stop.signal, { clock, channelOutcome: deps.metrics.channelOutcome,
          deliveryWindowMs: deps.deliveryWindowMs });
        completion = { ...decided, claim: claimed.claim };
      } catch (err) {
        if (!(err instanceof Interrupted)) deps.onError(err);
        lane.agent.log.write('warn', 'dispatch.interrupted', { eventId: claimed.event.id, outcome: 'given-back' });
        completion = { claim: claimed.claim, outcome: 'released' };
      } finally {
        lane.running.delete(claimed.event.id);
        pump(lane);
      }
      await commit(lane, claimed, completion);
    })();
    lane.running.set(claimed.event.id, { claimed, stop, done: work });
    track(work);
  }

  async function commit(lane: Lane, claimed: ClaimedEvent, completion: Completion): Promise<void> {
    const { event } = claimed;
    try {
      const result = await committer.submit(completion);
      if (!result.ok) {
        lane.agent.log.write('warn', 'dispatch.claim-lost', { eventId: event.id, attempt: claimed.claim.attempt,
          outcome: 'another holder took the event after its lease ran out' });
        return;
      }
      const counters = stats.get(event.agentId, event.sourceId);
      if (completion.outcome === 'processed') {
        counters.processed += 1;
        deps.metrics.latency(event.agentId, Math.max(0, clock.now() - Date.parse(event.ts)) / 1000);
      } else if (completion.outcome === 'dead-lettered') {
        counters.dlq += 1;
      }
    } catch (err) {
      // Not written: the claim is left to run out, and the event is claimed again (contract §10.2).
      lane.agent.log.write('error', 'dispatch.commit-failed', { eventId: event.id, error: errorText(err), outcome: 'retried-after-lease' });
      deps.onError(err);
    }
  }

  async function release(claims: readonly ClaimedEvent[]): Promise<void> {
    if (claims.length === 0) return;
    await Promise.all(claims.map((c) => committer.submit({ claim: c.claim, outcome: 'released' }).catch(() => undefined)));
  }

  /** Every claim this dispatcher holds: waiting, running, and queued for commit. */
  const held = (): ClaimRef[] => [
    ...[...lanes.values()].flatMap((l) => [...l.waiting.map((c) => c.claim), ...[...l.running.values()].map((t) => t.claimed.claim)]),
    ...committer.held(),
  ];

  async function heartbeat(): Promise<void> {
    const claims = held();
    if (claims.length === 0) return;
    try {
      const lost = new Set((await store.renewLeases(claims, deps.leaseMs, clock.now())).map((c) => `${c.eventId}#${c.attempt}`));
      if (lost.size === 0) return;
      for (const lane of lanes.values()) {
        lane.waiting = lane.waiting.filter((c) => !lost.has(`${c.claim.eventId}#${c.claim.attempt}`));
        for (const task of lane.running.values()) {
          if (lost.has(`${task.claimed.claim.eventId}#${task.claimed.claim.attempt}`)) task.stop.abort();
        }
      }
    } catch (err) {
      deps.onError(err);
    }
  }

  const armPoll = (): void => {
    pollTimer = clock.setTimer(() => {
      for (const lane of lanes.values()) {
        lane.maybeMore = true;
        pump(lane);
      }
      armPoll();
    }, pollMs);
  };
  const armBeat = (): void => {
    beatTimer = clock.setTimer(() => { track(heartbeat().finally(() => { if (!stopping.signal.aborted) armBeat(); })); },
      Math.max(100, Math.floor(deps.leaseMs / 3)));
  };

  return {
    start() {
      if (started) return;
      started = true;
      armPoll();
      armBeat();
      for (const lane of lanes.values()) pump(lane);
    },
    wake(agentId) {
      if (!started) return;
      const targets = agentId === undefined ? [...lanes.values()] : [lanes.get(agentId)].filter((l): l is Lane => l !== undefined);
      for (const lane of targets) {
        lane.maybeMore = true;
        pump(lane);
      }
    },
    inHand: () => held().length,
    replaceAgent(agent) {
      const lane = lanes.get(agent.id);
      if (lane === undefined) throw new Error(`no agent ${agent.id} in this dispatcher: adding one needs a restart`);
      const underWay = [...lane.running.values()].map((t) => t.done);
      lane.agent = agent;
      pump(lane);
      return Promise.allSettled(underWay).then(() => undefined);
    },
    async drain(timeoutMs) {
      stopping.abort();
      if (pollTimer !== null) clock.clearTimer(pollTimer);
      if (beatTimer !== null) clock.clearTimer(beatTimer);
      const waited = new AbortController();
      const overdue = clock.sleep(timeoutMs, waited.signal).then(() => {
        for (const lane of lanes.values()) for (const task of lane.running.values()) task.stop.abort();
      }, () => undefined);
      await release([...lanes.values()].flatMap((l) => l.waiting.splice(0)));
      while (active.size > 0) await Promise.allSettled([...active]);
      waited.abort();
      await overdue;
      await committer.idle();
    },
  };
}
