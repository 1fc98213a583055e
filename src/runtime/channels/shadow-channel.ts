/**
 * A shadow run's channel (contract §22.3): what an agent with `shadow: true` gets in place of each of
 * its channels, built in one place (build-agent.ts). It answers every send as taken (after the last look before the wire,
 * as a live send takes it) and calls
 * nothing — no request, no file line, no call, no SMS — so every round, notify-once, plain message,
 * handoff notice, status update and `onExhausted` goes through the dispatcher and the page notifier
 * exactly as it would live and is recorded there as shadowed (`message.shadowed`,
 * `svc_channel_messages_total{outcome="shadow"}`), while nobody is told anything.
 *
 * It keeps what shapes the plan — its id, type and whether the channel follows a page's state (an ack
 * then makes a round, as it would live) — and drops what only a real send needs (editing earlier
 * messages in place). The wrapped channel is built (its configuration checked, as `svc check` does)
 * but never sent through; it is closed with the agent.
 */
import type { Channel, DeliveryResult, InboundMessage, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT, throughGate } from './channel.js';

/** What every send of a shadow run answers: taken, nothing sent. */
const SHADOWED: DeliveryResult = Object.freeze({ ok: true, detail: {}, shadow: true });

export function shadowChannel(inner: Channel): Channel {
  return {
    id: inner.id,
    type: inner.type,
    direction: inner.direction,
    ...(inner.followsPageState === true ? { followsPageState: true } : {}),
    maxAttempts: inner.maxAttempts,
    // The last look is taken as a live send would take it: a round the page has moved past since its
    // claim (an ack committed) is not sent live, so it is not recorded as shadowed either.
    send: async (_message: OutboundMessage, _signal: AbortSignal, gate?: WireGate) =>
      (await throughGate(gate, () => Promise.resolve()) ? SHADOWED : NOT_SENT),
    receive: (message: InboundMessage) => inner.receive(message),
    ready: () => inner.ready(),
    close: () => inner.close(),
  };
}
