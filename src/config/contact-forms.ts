/**
 * What a person's address looks like on each kind of channel (oncall.yaml `contacts`, contract §17,
 * §21). Checked by
 * `svc check` with the contact's file:line:col, so a typo is found before the page that would have
 * gone nowhere. Channels not listed take any one-line text (a Slack user id, a label for a
 * single-target channel).
 */
import type { ChannelConfig } from './schema.js';
import { NTFY_TOPIC } from './ntfy-channel.js';
import { PUSHOVER_KEY } from './pushover-channel.js';
import { TELEGRAM_CHAT_ID } from './telegram-channel.js';
import { E164 } from './twilio-channel.js';

export interface ContactForm {
  pattern: RegExp;
  /** Completes "must be …". */
  form: string;
}

export const CONTACT_FORMS: Readonly<Partial<Record<ChannelConfig['type'], ContactForm>>> = {
  ntfy: { pattern: NTFY_TOPIC, form: 'an ntfy topic: 1-64 letters, digits, "-" and "_"' },
  pushover: { pattern: PUSHOVER_KEY, form: 'a Pushover user or group key: 30 letters and digits' },
  twilio: { pattern: E164, form: 'a phone number in E.164, e.g. "+4915112345678" (quoted: YAML reads +49… as a number)' },
  telegram: { pattern: TELEGRAM_CHAT_ID, form: 'a Telegram chat id, e.g. "123456789" (the private chat of the person with the bot)' },
};

/** Why `address` cannot be a person's address on `channel`; null when it can. Never quotes the address. */
export function contactProblem(channel: Pick<ChannelConfig, 'id' | 'type'>, address: string): string | null {
  const form = CONTACT_FORMS[channel.type];
  return form === undefined || form.pattern.test(address) ? null : `must be ${form.form} (channel ${channel.id} is type: ${channel.type})`;
}
