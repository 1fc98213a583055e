/**
 * A channel's own recipient (contract §9.4, §17.2, §18): where a message that names no person goes —
 * every message of an agent without oncall.yaml, and a `channel:<id>` target of one with it. Most
 * channel types always have one; on these it is optional, because people's contacts in oncall.yaml
 * can be all a channel is used for: Slack (`user`, a direct message, or `conversation`, a shared
 * channel, §24.2), Telegram (`chat`, §21.5), Twilio (`to`, §21.4), ntfy (`topic`) and Pushover (`user`,
 * a user or group key, §21.2–§21.3). Without one, such a channel sends
 * only to people's contacts, so `svc check` refuses it where a message would name no person: here for
 * an agent without oncall.yaml (channels.yaml:line:col), in oncall/load-oncall.ts for a `channel:` target.
 */
import type { ChannelConfig } from './schema.js';
import type { YamlFile } from './yaml-file.js';

/** The file that turns pages on (§17): without it, every message goes to the channels' own recipients. */
export const ONCALL_FILE = 'oncall.yaml';

/** The keys that name a channel's own recipient, for the types on which it is optional. */
export const OPTIONAL_RECIPIENT_KEYS: Readonly<Partial<Record<ChannelConfig['type'], readonly string[]>>> = {
  slack: ['user', 'conversation'],
  telegram: ['chat'],
  twilio: ['to'],
  ntfy: ['topic'],
  pushover: ['user'],
};

/** Whether messages that name no person have somewhere to go on this channel. */
export function hasOwnRecipient(channel: { type?: string }): boolean {
  const keys = channel.type === undefined ? undefined : OPTIONAL_RECIPIENT_KEYS[channel.type as ChannelConfig['type']];
  return keys === undefined || keys.some((key) => (channel as Record<string, unknown>)[key] !== undefined);
}

/** "`user` or `conversation`": what to set on a channel of `type` to give it its own recipient. */
export function recipientKeysText(type: string | undefined): string {
  const keys = type === undefined ? undefined : OPTIONAL_RECIPIENT_KEYS[type as ChannelConfig['type']];
  return (keys ?? []).map((k) => `\`${k}\``).join(' or ');
}

/** The channels of an agent directory without oncall.yaml that would have nobody to send to; none when it has the file. */
export function ownRecipientProblems(file: YamlFile<{ channels: ChannelConfig[] }>, hasOncallFile: boolean): string[] {
  if (hasOncallFile) return [];
  return file.value.channels.flatMap((channel, i) => (hasOwnRecipient(channel) ? [] : [file.problem(['channels', i],
    `channel ${channel.id} (type: ${channel.type}) has no ${recipientKeysText(channel.type)}: it sends only to people's contacts in ${ONCALL_FILE}, `
      + `and this agent has no ${ONCALL_FILE}: every message goes to the channel's own recipient, so set one`)]));
}
