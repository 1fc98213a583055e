/**
 * What a person's address looks like on each kind of channel (oncall.yaml `contacts`, contract §17,
 * §21), and whether a channel has a recipient of its own for messages that name no person. Channels
 * not listed take any one-line text (a Slack user id, a label for a single-target channel).
 */
import type { ChannelConfig } from './schema.js';
import { NTFY_TOPIC } from './ntfy-channel.js';
import { PUSHOVER_KEY } from './pushover-channel.js';

interface ContactShape { pattern: RegExp; what: string }

const CONTACT_SHAPES: Partial<Record<ChannelConfig['type'], ContactShape>> = {
  ntfy: { pattern: NTFY_TOPIC, what: 'an ntfy topic: 1-64 letters, digits, "-" and "_"' },
  pushover: { pattern: PUSHOVER_KEY, what: 'a Pushover user or group key: 30 letters and digits' },
};

/** Why `value` cannot be a person's address on `channel`; null when it can. Never quotes the value. */
export function contactProblem(channel: ChannelConfig, value: string): string | null {
  const shape = CONTACT_SHAPES[channel.type];
  return shape === undefined || shape.pattern.test(value) ? null : `must be ${shape.what} (channel ${channel.id} is type: ${channel.type})`;
}

/** The key that would name the channel's own recipient, when the channel has none set; null when it has one. */
export function missingOwnRecipient(channel: ChannelConfig): string | null {
  if (channel.type === 'ntfy' && channel.topic === undefined) return 'topic';
  if (channel.type === 'pushover' && channel.user === undefined) return 'user';
  return null;
}
