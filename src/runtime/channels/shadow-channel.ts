/**
 * A shadow run's channel (contract §22.3): what an agent with `shadow: true` gets in place of each of
 * its channels, built in one place (build-agent.ts). It answers every send at once as taken and calls
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
import type { Channel, DeliveryResult, InboundMessage } from './channel.js';

/** What every send of a shadow run answers: taken, nothing sent. */
const SHADOWED: DeliveryResult = Object.freeze({ ok: true, detail: {}, shadow: true });

export function shadowChannel(inner: Channel): Channel {
  return {
    id: inner.id,
    type: inner.type,
    direction: inner.direction,
    ...(inner.followsPageState === true ? { followsPageState: true } : {}),
    maxAttempts: inner.maxAttempts,
    send: () => Promise.resolve(SHADOWED),
    receive: (message: InboundMessage) => inner.receive(message),
    ready: () => inner.ready(),
    close: () => inner.close(),
  };
}
