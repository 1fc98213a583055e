/** Builds the outbound channel a `channels.yaml` entry names (contract §9.5). */
import type { ChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { Channel } from './channel.js';
import { createEmailChannel } from './email-channel.js';
import { createFileChannel } from './file-channel.js';
import { createNtfyChannel } from './ntfy-channel.js';
import { createPagerdutyChannel } from './pagerduty-channel.js';
import { createPushoverChannel } from './pushover-channel.js';
import { createSlackChannel } from './slack-channel.js';
import { createTeamsChannel } from './teams-channel.js';
import { createTelegramChannel } from './telegram-channel.js';
import { createTwilioChannel } from './twilio-channel.js';
import { createWebhookChannel } from './webhook-channel.js';

export interface ChannelDeps {
  clock: Clock;
  /** The `type: twilio` source that serves this channel (§21.4), for a Twilio channel that has one. */
  twilioSource?: { publicUrl: string };
}

export function createChannel(config: ChannelConfig, deps: ChannelDeps): Channel {
  switch (config.type) {
    case 'file':
      return createFileChannel(config, deps);
    case 'slack':
      return createSlackChannel(config, deps);
    case 'webhook':
      return createWebhookChannel(config, deps);
    case 'teams':
      return createTeamsChannel(config, deps);
    case 'pagerduty':
      return createPagerdutyChannel(config, deps);
    case 'email':
      return createEmailChannel(config, deps);
    case 'ntfy':
      return createNtfyChannel(config, deps);
    case 'pushover':
      return createPushoverChannel(config, deps);
    case 'twilio':
      return createTwilioChannel(config, { clock: deps.clock, ...(deps.twilioSource === undefined ? {} : { source: deps.twilioSource }) });
    case 'telegram':
      return createTelegramChannel(config, deps);
    default: {
      // A new channel type in the schema without a case here fails to compile.
      const unknown: never = config;
      throw new Error(`unknown channel type: ${(unknown as { type: string }).type}`);
    }
  }
}
