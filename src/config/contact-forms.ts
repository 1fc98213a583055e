/**
 * What a person's address (oncall.yaml `contacts`, §17, §21) must look like on a channel of each type
 * that has a fixed form; other types take any label. Checked by `svc check` with the contact's
 * file:line:col, so a typo is found before the page that would have gone nowhere.
 */
import type { ChannelConfig } from './schema.js';
import { TELEGRAM_CHAT_ID } from './telegram-channel.js';
import { E164 } from './twilio-channel.js';

export interface ContactForm {
  pattern: RegExp;
  /** Completes "must be …". */
  form: string;
}

export const CONTACT_FORMS: Readonly<Partial<Record<ChannelConfig['type'], ContactForm>>> = {
  twilio: { pattern: E164, form: 'a phone number in E.164, e.g. "+4915112345678" (quoted: YAML reads +49… as a number)' },
  telegram: { pattern: TELEGRAM_CHAT_ID, form: 'a Telegram chat id, e.g. "123456789" (the private chat of the person with the bot)' },
};

/** The problem with `address` as a contact on a channel of `type`, or null when it has the type's form (or the type has none). */
export function contactProblem(type: string | undefined, address: string): string | null {
  const form = type === undefined ? undefined : CONTACT_FORMS[type as ChannelConfig['type']];
  if (form === undefined || form.pattern.test(address)) return null;
  return `must be ${form.form}`;
}
