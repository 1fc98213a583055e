/**
 * Dispatcher: takes accepted events, asks the agent's provider to triage them and delivers the
 * resulting direct message through every outbound channel of the agent. Failed attempts are retried
 * with back-off; an event that still fails lands in the dead-letter list with its reason. Nothing
 * vanishes: an event interrupted by shutdown stays `processing` in the store and is dispatched again
 * at the next start (at-least-once; messages carry the eventId so receivers can de-duplicate).
 */
import type { DispatchConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { EventRecord, Store } from '../store/store.js';
import type { BackoffPolicy } from '../core/backoff.js';
import { backoffMs } from '../core/backoff.js';
import type { Channel, OutboundMessage } from './channels/channel.js';
import type { DeadLetterReason } from './dead-letter-reasons.js';
import type { Provider, TriageDecision } from './providers/provider.js';
import type { SourceStats } from '../metrics/source-stats.js';

export interface DispatchAgent {
  id: string;
  provider: Provider;
  channels: Channel[];
  log: AgentLog;
  dispatch: DispatchConfig;
}

/** Audit back-pressure (audit/export): while closed, the dispatcher takes no new event. */
export interface IntakeGate {
  /** Resolves at once while open; rejects when `signal` aborts. */
  whenOpen(signal: AbortSignal): Promise<void>;
}

export interface Dispatcher {
  enqueue(event: EventRecord): void;
  /** Events queued or being handled, all agents. */
  pending(): number;
  /** Stops taking work and waits for in-flight events; after `timeoutMs` aborts their retries. */
  drain(timeoutMs: number): Promise<void>;
}

interface Failure {
  reason: DeadLetterReason;
  error: string;
  attempts: number;
}

class Interrupted extends Error {}

export function createDispatcher(deps: {
  store: Store;
  agents: DispatchAgent[];
  stats: SourceStats;
  clock: Clock;
  /** Intake pauses while the gate is closed (events stay `accepted`, nothing is dropped). */
  gate?: IntakeGate;
  onError: (err: unknown) => void;
}): Dispatcher {
  const { store, stats, clock } = deps;
  const abort = new AbortController();
  /** Aborted as soon as draining starts: events still waiting at the gate have not begun, so they leave at once. */
  const intake = new AbortController();
  const agents = new Map(deps.agents.map((a) => [a.id, a]));
  const queues = new Map<string, EventRecord[]>(deps.agents.map((a) => [a.id, []]));
  const running = new Map<string, number>(deps.agents.map((a) => [a.id, 0]));
  const active = new Set<Promise<void>>();
  let accepting = true;

  function pump(agentId: string): void {
    const agent = agents.get(agentId);
    const queue = queues.get(agentId);
    if (!agent || !queue) return;
    while (accepting && queue.length > 0 && (running.get(agentId) ?? 0) < agent.dispatch.concurrency) {
      const event = queue.shift() as EventRecord;
      running.set(agentId, (running.get(agentId) ?? 0) + 1);
      const job = handle(agent, event)
        .catch(deps.onError)
        .finally(() => {
          running.set(agentId, (running.get(agentId) ?? 1) - 1);
          active.delete(job);
          pump(agentId);
        });
      active.add(job);
    }
  }

  async function handle(agent: DispatchAgent, event: EventRecord): Promise<void> {
    const counters = stats.get(agent.id, event.sourceId);
    try {
      if (deps.gate) {
        try {
          await deps.gate.whenOpen(intake.signal);
        } catch {
          throw new Interrupted();
        }
      }
      await store.setEventStatus(event.id, 'processing');
      const triage = await triageWithRetries(agent, event);
      if ('reason' in triage) return await deadLetter(agent, event, triage);
      await store.appendAudit({
        kind: 'triage.decision',
        actor: `agent:${agent.id}`,
        agentId: agent.id,
        data: { eventId: event.id, provider: agent.provider.name, triagedBy: triage.triagedBy, notify: triage.notify, severity: triage.severity,
          status: triage.status, title: triage.title, alertCount: triage.alertCount },
      });
      agent.log.write('info', 'dispatch.triaged', { eventId: event.id, fingerprint: event.fingerprint,
        severity: triage.severity, status: triage.status, title: triage.title, notify: triage.notify });
      if (triage.notify) {
        const failure = await deliverAll(agent, event, triage);
        if (failure) return await deadLetter(agent, event, failure);
      }
      await store.setEventStatus(event.id, 'processed');
      counters.processed += 1;
      counters.inflight = Math.max(0, counters.inflight - 1);
      agent.log.write('info', 'dispatch.processed', { eventId: event.id, fingerprint: event.fingerprint, outcome: 'processed' });
    } catch (err) {
      if (err instanceof Interrupted) {
        agent.log.write('warn', 'dispatch.interrupted', { eventId: event.id, outcome: 'requeued-at-next-start' });
        return;
      }
      throw err;
    }
  }

  async function triageWithRetries(agent: DispatchAgent, event: EventRecord): Promise<TriageDecision | Failure> {
    for (let attempt = 1; ; attempt += 1) {
      let result;
      try {
        result = await agent.provider.triage(event, abort.signal);
      } catch (err) {
        result = { ok: false as const, retryable: true, reason: 'triage-failed' as const, error: errorText(err) };
      }
      if (result.ok) return result.decision;
      if (abort.signal.aborted) throw new Interrupted();
      if (!result.retryable || attempt >= agent.dispatch.maxAttempts) {
        return { reason: result.reason, error: result.error, attempts: attempt };
      }
      agent.log.write('warn', 'dispatch.triage-retry', { eventId: event.id, attempt, error: result.error });
      await pause(agent.dispatch, attempt);
    }
  }

  async function deliverAll(agent: DispatchAgent, event: EventRecord, triage: TriageDecision): Promise<Failure | null> {
    const message: OutboundMessage = { eventId: event.id, agentId: agent.id, severity: triage.severity,
      status: triage.status, title: triage.title, text: triage.text, triagedBy: triage.triagedBy };
    for (const channel of agent.channels) {
      const failure = await deliver(agent, channel, message);
      if (failure) return failure;
    }
    return null;
  }

  async function deliver(agent: DispatchAgent, channel: Channel, message: OutboundMessage): Promise<Failure | null> {
    const maxAttempts = channel.maxAttempts ?? agent.dispatch.maxAttempts;
    for (let attempt = 1; ; attempt += 1) {
      if (abort.signal.aborted) throw new Interrupted();
      const result = await channel.send(message, abort.signal);
      if (result.ok) {
        await store.appendAudit({
          kind: 'message.delivered',
          actor: `agent:${agent.id}`,
          agentId: agent.id,
          data: { eventId: message.eventId, channelId: channel.id, channelType: channel.type, attempts: attempt,
            severity: message.severity, ...result.detail },
        });
        agent.log.write('info', 'dispatch.delivered', { eventId: message.eventId, channelId: channel.id,
          attempts: attempt, severity: message.severity, outcome: 'delivered' });
        return null;
      }
      if (abort.signal.aborted) throw new Interrupted();
      const error = `channel ${channel.id}: ${result.error}`;
      if (!result.retryable) return { reason: 'delivery-rejected', error, attempts: attempt };
      if (attempt >= maxAttempts) return { reason: 'delivery-failed', error, attempts: attempt };
      agent.log.write('warn', 'dispatch.delivery-retry', { eventId: message.eventId, channelId: channel.id,
        attempt, error: result.error });
      await pause(agent.dispatch, attempt, result.retryAfterMs);
    }
  }

  async function pause(policy: BackoffPolicy, attempt: number, retryAfterMs?: number): Promise<void> {
    try {
      await clock.sleep(backoffMs(policy, attempt, retryAfterMs), abort.signal);
    } catch {
      throw new Interrupted();
    }
  }

  async function deadLetter(agent: DispatchAgent, event: EventRecord, failure: Failure): Promise<void> {
    const letter = await store.addDeadLetter({ agentId: agent.id, sourceId: event.sourceId, eventId: event.id,
      reason: failure.reason, error: failure.error, attempts: failure.attempts, payload: event.payload });
    const counters = stats.get(agent.id, event.sourceId);
    counters.dlq += 1;
    counters.inflight = Math.max(0, counters.inflight - 1);
    agent.log.write('error', 'dispatch.dead-lettered', { eventId: event.id, fingerprint: event.fingerprint,
      deadLetterId: letter.id, reason: failure.reason, attempts: failure.attempts, error: failure.error,
      outcome: 'dead-lettered' });
  }

  return {
    enqueue(event) {
      const queue = queues.get(event.agentId);
      if (!queue || !accepting) return; // stays accepted in the store; picked up at the next start
      queue.push(event);
      pump(event.agentId);
    },
    pending() {
      let n = active.size;
      for (const q of queues.values()) n += q.length;
      return n;
    },
    async drain(timeoutMs) {
      accepting = false;
      intake.abort();
      for (const q of queues.values()) q.length = 0; // still `accepted` in the store
      const all = Promise.allSettled([...active]);
      const waited = new AbortController();
      void clock.sleep(timeoutMs, waited.signal).then(() => abort.abort(), () => undefined);
      try {
        await all;
      } finally {
        waited.abort();
        abort.abort();
      }
    },
  };
}
