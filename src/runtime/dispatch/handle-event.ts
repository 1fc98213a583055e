/**
 * What happens to one claimed event: its payload is read, the agent's provider triages it (retried
 * with back-off while the failure is retryable), and the message goes to every outbound channel that
 * has not delivered it yet (each retried on its own, every failed try audited). The answer is the
 * event's completion — processed with its audit rows, back to the store for a later round while a
 * channel keeps failing within the delivery window (delivery-state.ts), or dead-lettered with the
 * reason — for the committer to write with others in one transaction.
 *
 * A hand-off carries a `deliveryId` that is the same on every retry and every later claim of the
 * event (contract §10.3), so a receiver, or the file channel itself, can tell a re-delivery.
 */
import type { NewAuditEntry } from '../../audit/audit-row.js';
import type { DispatchConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { isoTs } from '../../core/clock.js';
import type { BackoffPolicy } from '../../core/backoff.js';
import { backoffMs } from '../../core/backoff.js';
import { abortable } from '../../core/abortable.js';
import { errorText } from '../../core/errors.js';
import type { AgentLog } from '../../logs/agent-log.js';
import type { ChannelMessageOutcome } from '../../metrics/metric-names.js';
import type { ClaimedEvent, Completion } from '../../store/store.js';
import type { Channel, OutboundMessage } from '../channels/channel.js';
import type { Provider, TriageDecision, TriageEvent } from '../providers/provider.js';
import { createRulesProvider } from '../providers/rules-provider.js';
import type { DeadLetterReason } from './dead-letter-reasons.js';
import type { RoundResult } from './delivery-state.js';
import { decideRound, deliveryStateText, isDelivered, parseDeliveryState } from './delivery-state.js';

export interface DispatchAgent {
  id: string;
  provider: Provider;
  channels: Channel[];
  log: AgentLog;
  dispatch: DispatchConfig;
  /** A shadow run (contract §22.3): its channels send nothing (shadow-channel.ts) and its page rounds say so. */
  shadow?: true;
  /**
   * The page engine when the agent has an oncall.yaml (contract §17): it takes the triage decision
   * (open, join or resolve a page, or notify once) instead of one message per channel.
   */
  pages?: {
    onDecision(event: { id: string; agentId: string; sourceId: string; fingerprint: string | null; payload: unknown },
      decision: TriageDecision): Promise<boolean>;
    /** Whether the event is only a heartbeat's proof of life (§17.7): it pages nobody, so no model is asked about it. */
    heartbeatOnly?(event: { agentId: string; sourceId: string; payload: unknown }): boolean;
  };
}

/** The triage of a heartbeat's delivery: the offline rules, however often it comes (Alertmanager repeats its Watchdog every minute). */
const HEARTBEAT_TRIAGE = createRulesProvider();

/** Counts each hand-off's outcome (svc_channel_messages_total). */
export type ChannelOutcome = (agentId: string, channelId: string, outcome: ChannelMessageOutcome) => void;

/**
 * How a hand-off its channel took is counted and recorded: delivered, or — a shadow run's (§22.3) —
 * shadowed: recorded like a delivery, with what it would have said, and sent to nobody.
 */
export function takenBy(result: { shadow?: true }): { outcome: 'delivered' | 'shadow'; kind: 'message.delivered' | 'message.shadowed' } {
  return result.shadow === true ? { outcome: 'shadow', kind: 'message.shadowed' } : { outcome: 'delivered', kind: 'message.delivered' };
}

/** The work was stopped (shutdown, or the claim was lost): the event is given back, not judged. */
export class Interrupted extends Error {}

/** The deliveryId of an event's hand-off to one channel: stable across retries, claims and restarts. */
export function deliveryIdOf(eventId: string, channelId: string): string {
  return `${eventId}.${channelId}`;
}

/** A completion without its claim (distributed over the outcomes a handled event can have). */
type Unclaimed<C> = C extends Completion ? Omit<C, 'claim'> : never;
type Decided = Unclaimed<Extract<Completion, { outcome: 'processed' | 'dead-lettered' | 'retry' }>>;

interface Failure { reason: DeadLetterReason; error: string; attempts: number }

export interface HandleDeps {
  clock: Clock;
  channelOutcome: ChannelOutcome;
  /** How long a failing channel is retried from its first failure before the event is dead-lettered (store.deliveryWindow). */
  deliveryWindowMs: number;
}

/** Handles one claimed event; throws Interrupted when `signal` aborts. */
export async function handleEvent(agent: DispatchAgent, claimed: ClaimedEvent, signal: AbortSignal, deps: HandleDeps): Promise<Decided> {
  const { event, claim } = claimed;
  const audit: NewAuditEntry[] = [];
  const actor = `agent:${agent.id}`;
  const deadLetter = (failure: Failure, delivery?: string): Decided => {
    agent.log.write('error', 'dispatch.dead-lettered', { eventId: event.id, fingerprint: event.fingerprint, reason: failure.reason,
      attempts: failure.attempts, error: failure.error, outcome: 'dead-lettered' });
    return { outcome: 'dead-lettered', deadLetter: failure, audit, ...(delivery === undefined ? {} : { delivery }) };
  };

  const payload = parsePayload(event.payloadText);
  if (payload === undefined) return deadLetter({ reason: 'corrupt-event', error: 'the stored payload cannot be decoded', attempts: 1 });
  const input: TriageEvent = { id: event.id, agentId: event.agentId, sourceId: event.sourceId, fingerprint: event.fingerprint, payload };

  const before = parseDeliveryState(claimed.delivery);
  let triage: TriageDecision;
  if (before.decision !== undefined) {
    triage = before.decision; // a later round sends what the first one decided
  } else {
    const triaged = agent.pages?.heartbeatOnly?.(input) === true
      ? await triageWithRetries({ ...agent, provider: HEARTBEAT_TRIAGE }, input, signal, deps.clock)
      : await triageWithRetries(agent, input, signal, deps.clock);
    if ('reason' in triaged) return deadLetter(triaged);
    triage = triaged;
    audit.push({ kind: 'triage.decision', actor, agentId: agent.id, data: { eventId: event.id, provider: agent.provider.name,
      triagedBy: triage.triagedBy, notify: triage.notify, severity: triage.severity, status: triage.status, title: triage.title,
      alertCount: triage.alertCount } });
    agent.log.write('info', 'dispatch.triaged', { eventId: event.id, fingerprint: event.fingerprint, severity: triage.severity,
      status: triage.status, title: triage.title, notify: triage.notify, triagedBy: triage.triagedBy });
  }

  const results: RoundResult[] = [];
  if (triage.notify && agent.pages !== undefined) {
    // Committed before the event's completion: a crash in between re-triages, and the page sees the event already joined.
    // A new page's first round is sent before this returns (page-engine.ts); a stop does not wait for
    // that send: the event is given back, and its page, committed, keeps the round (sent, or in the outbox).
    const deciding = agent.pages.onDecision({ id: event.id, agentId: event.agentId, sourceId: event.sourceId, fingerprint: event.fingerprint,
      payload }, triage);
    try {
      await abortable(deciding, signal);
    } catch (err) {
      if (!signal.aborted) throw err;
      deciding.catch(() => undefined); // it goes on; a failure of it now is the next claim's to meet
      throw new Interrupted();
    }
  } else if (triage.notify) {
    for (const channel of agent.channels) {
      if (isDelivered(before, channel.id)) continue; // delivered in an earlier round: never sent again
      const message: OutboundMessage = { eventId: event.id, agentId: agent.id, severity: triage.severity, status: triage.status,
        title: triage.title, text: triage.text, triagedBy: triage.triagedBy, deliveryId: deliveryIdOf(event.id, channel.id),
        attempt: claim.attempt };
      const failure = await deliver(agent, channel, message, audit, signal, deps);
      results.push(failure === null ? { channelId: channel.id, delivered: true }
        : { channelId: channel.id, delivered: false, reason: failure.reason === 'delivery-rejected' ? 'delivery-rejected' : 'delivery-failed',
          error: failure.error, tries: failure.attempts });
    }
  }
  const verdict = decideRound({ ...before, decision: triage }, results, deps.clock.now(), deps.deliveryWindowMs, agent.dispatch);
  const delivery = deliveryStateText(verdict.state);
  if (verdict.outcome === 'dead-lettered') return deadLetter({ reason: verdict.reason, error: verdict.error, attempts: verdict.attempts }, delivery);
  if (verdict.outcome === 'retry') {
    agent.log.write('warn', 'dispatch.retry-later', { eventId: event.id, fingerprint: event.fingerprint, round: verdict.state.rounds,
      dueAt: isoTs(verdict.dueMs), failing: results.filter((r) => !r.delivered).map((r) => r.channelId).join(','),
      outcome: 'waiting' });
    return { outcome: 'retry', dueMs: verdict.dueMs, delivery, audit };
  }
  agent.log.write('info', 'dispatch.processed', { eventId: event.id, fingerprint: event.fingerprint, outcome: 'processed' });
  return { outcome: 'processed', audit, delivery };
}

/** The payload as JSON, or undefined when the stored text is not a JSON object. */
function parsePayload(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function triageWithRetries(agent: DispatchAgent, event: TriageEvent, signal: AbortSignal, clock: Clock): Promise<TriageDecision | Failure> {
  for (let attempt = 1; ; attempt += 1) {
    let result;
    try {
      result = await agent.provider.triage(event, signal);
    } catch (err) {
      result = { ok: false as const, retryable: true, reason: 'triage-failed' as const, error: errorText(err) };
    }
    if (result.ok) return result.decision;
    if (signal.aborted) throw new Interrupted();
    if (!result.retryable || attempt >= agent.dispatch.maxAttempts) return { reason: result.reason, error: result.error, attempts: attempt };
    agent.log.write('warn', 'dispatch.triage-retry', { eventId: event.id, attempt, error: result.error });
    await pause(agent.dispatch, attempt, undefined, signal, clock);
  }
}

async function deliver(agent: DispatchAgent, channel: Channel, message: OutboundMessage, audit: NewAuditEntry[], signal: AbortSignal,
  deps: HandleDeps): Promise<Failure | null> {
  const maxAttempts = channel.maxAttempts ?? agent.dispatch.maxAttempts;
  for (let tries = 1; ; tries += 1) {
    if (signal.aborted) throw new Interrupted();
    const result = await channel.send(message, signal);
    if (result.ok) {
      const taken = takenBy(result);
      deps.channelOutcome(agent.id, channel.id, taken.outcome);
      audit.push({ kind: taken.kind, actor: `agent:${agent.id}`, agentId: agent.id, data: { eventId: message.eventId,
        channelId: channel.id, channelType: channel.type, deliveryId: message.deliveryId, attempt: message.attempt, tries,
        severity: message.severity, ...(result.shadow === true ? { title: message.title } : {}), ...result.detail } });
      agent.log.write('info', 'dispatch.delivered', { eventId: message.eventId, channelId: channel.id, deliveryId: message.deliveryId,
        attempt: message.attempt, tries, severity: message.severity, outcome: taken.outcome });
      return null;
    }
    if (signal.aborted) throw new Interrupted();
    deps.channelOutcome(agent.id, channel.id, 'failed');
    audit.push({ kind: 'message.failed', actor: `agent:${agent.id}`, agentId: agent.id, data: { eventId: message.eventId,
      channelId: channel.id, channelType: channel.type, deliveryId: message.deliveryId, attempt: message.attempt, tries,
      retryable: result.retryable, error: result.error } });
    const error = `channel ${channel.id}: ${result.error}`;
    if (!result.retryable) return { reason: 'delivery-rejected', error, attempts: tries };
    if (tries >= maxAttempts) return { reason: 'delivery-failed', error, attempts: tries };
    agent.log.write('warn', 'dispatch.delivery-retry', { eventId: message.eventId, channelId: channel.id, attempt: tries, error: result.error });
    await pause(agent.dispatch, tries, result.retryAfterMs, signal, deps.clock);
  }
}

async function pause(policy: BackoffPolicy, attempt: number, retryAfterMs: number | undefined, signal: AbortSignal, clock: Clock): Promise<void> {
  try {
    await clock.sleep(backoffMs(policy, attempt, retryAfterMs), signal);
  } catch {
    throw new Interrupted();
  }
}
