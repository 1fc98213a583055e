/**
 * `teams` channel (contract §18.3): an Adaptive Card 1.2 POSTed to a Microsoft Teams Workflows
 * webhook ("When a Teams webhook request is received" → "Post card in a chat or channel"). Workflows
 * take exactly this envelope; the retired Office 365 connectors' MessageCard is not accepted.
 *
 *   {"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive",
 *     "content":{"$schema":…,"type":"AdaptiveCard","version":"1.2","body":[…],"actions":[…]}}]}
 *
 * Workflows answer 202 Accepted; 429 carries Retry-After. The URL holds the workflow's signature
 * (`sig=`), so it is a secret: it never appears in a result.
 */
import type { TeamsChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage } from './channel.js';
import type { HttpAttempt } from './webhook-channel.js';
import { classifyWebhookStatus, postJson, safeSnippet } from './webhook-channel.js';

const ERROR_BODY_BYTES = 2048;

/** The card for a message (pure): the alert as the heading, what happened below, facts, and links when there are any. */
export function teamsCard(message: OutboundMessage): Record<string, unknown> {
  const resolved = message.status === 'resolved';
  const [first = '', ...rest] = message.text.split('\n');
  const facts = [
    { title: 'Severity', value: message.severity },
    ...(message.pageId === undefined ? [] : [{ title: 'Page', value: message.pageId }]),
    { title: 'Agent', value: message.agentId },
    { title: 'Event', value: message.eventId },
  ];
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', text: first, weight: 'Bolder', size: 'Medium', wrap: true, color: resolved ? 'Good' : 'Attention' },
    ...(rest.length === 0 ? [] : [{ type: 'TextBlock', text: rest.join('\n\n'), wrap: true }]),
    { type: 'FactSet', facts },
  ];
  const actions = message.links === undefined ? [] : [
    { type: 'Action.OpenUrl', title: 'Acknowledge', url: message.links.ack },
    { type: 'Action.OpenUrl', title: 'Resolve', url: message.links.resolve },
  ];
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.2', body,
        ...(actions.length === 0 ? {} : { actions }) },
    }],
  };
}

export function createTeamsChannel(config: TeamsChannelConfig, deps: { clock: Clock }): Channel {
  const secrets = [config.url, new URL(config.url).searchParams.get('sig') ?? ''];
  let closed = false;
  let healthy = true;

  function toResult(attempt: HttpAttempt): DeliveryResult {
    switch (attempt.kind) {
      case 'timeout':
        return { ok: false, retryable: true, error: `teams: timed out after ${config.timeoutMs} ms` };
      case 'aborted':
        return { ok: false, retryable: true, error: 'aborted' };
      case 'network':
        return { ok: false, retryable: true, error: `teams: network error: ${safeSnippet(attempt.error, secrets)}` };
      case 'response': {
        const result = classifyWebhookStatus(attempt.status, attempt.headers, safeSnippet(attempt.body, secrets), deps.clock.now());
        return result.ok ? result : { ...result, error: `teams: ${result.error}` };
      }
    }
  }

  async function send(message: OutboundMessage, signal: AbortSignal): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const attempt = await postJson(config.url, teamsCard(message), {
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': message.deliveryId },
      timeoutMs: config.timeoutMs, signal, maxBodyBytes: ERROR_BODY_BYTES, clock: deps.clock,
    });
    const result = toResult(attempt);
    if (attempt.kind !== 'aborted') healthy = result.ok || !result.retryable;
    return result;
  }

  return {
    id: config.id,
    type: 'teams',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    send: (message, signal) => send(message, signal).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
