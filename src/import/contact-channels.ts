/**
 * Which channel of the agent carries each kind of contact a vendor knows (docs/import.md). A person's
 * contacts in oncall.yaml are keyed by channel id (§17, §21), so the import needs one channel id per
 * kind: by default the ids contract §21 uses in its example (`mail`, `sms`, `phone`, `push`,
 * `slack-dm`, `tg`), or others given with `--channels email=work-mail,voice=call`. The report lists the
 * channels.yaml entry each used kind needs, by channel type (§18, §21).
 */
import { ID_PATTERN } from '../config/schema.js';
import type { ContactKind } from './import-result.js';
import { CONTACT_KINDS } from './import-result.js';

export const DEFAULT_CONTACT_CHANNELS: Readonly<Record<ContactKind, string>> = {
  email: 'mail',
  sms: 'sms',
  voice: 'phone',
  push: 'push',
  slack: 'slack-dm',
  telegram: 'tg',
};

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** `--channels kind=id[,kind=id…]` over the defaults; every kind named once, every id a valid id, no id for two kinds. */
export function parseChannelMap(text: string | undefined): Checked<Record<ContactKind, string>> {
  const map: Record<ContactKind, string> = { ...DEFAULT_CONTACT_CHANNELS };
  if (text === undefined || text.trim() === '') return { ok: true, value: map };
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(\S+)\s*$/.exec(part);
    if (m === null) return { ok: false, error: `expected kind=channel pairs separated by commas (e.g. email=mail,sms=twilio-sms), found ${JSON.stringify(part.slice(0, 40))}` };
    const kind = m[1] as ContactKind;
    if (!(CONTACT_KINDS as readonly string[]).includes(kind)) return { ok: false, error: `unknown contact kind ${JSON.stringify(kind)} (kinds: ${CONTACT_KINDS.join(', ')})` };
    if (seen.has(kind)) return { ok: false, error: `${kind} is given twice` };
    if (!ID_PATTERN.test(m[2] as string)) return { ok: false, error: `${kind}: channel id must match ${ID_PATTERN.source}` };
    seen.add(kind);
    map[kind] = m[2] as string;
  }
  const ids = new Map<string, ContactKind>();
  for (const kind of CONTACT_KINDS) {
    const other = ids.get(map[kind]);
    if (other !== undefined) return { ok: false, error: `${other} and ${kind} would share channel ${map[kind]}: a person has one address per channel` };
    ids.set(map[kind], kind);
  }
  return { ok: true, value: map };
}

/**
 * The channels.yaml entry a kind of contact needs (contract §18, §21), as a YAML list item with placeholders.
 * A `${…}` reference is quoted: bare inside a flow mapping its `{` would start another mapping.
 */
export function channelSnippet(kind: ContactKind, id: string): string {
  switch (kind) {
    case 'email':
      return `- { id: ${id}, type: email, direction: outbound, smtp: { host: smtp.example.com, port: 587, username: svc, password: "\${secret:smtp/password}" }, from: svc@example.com, to: oncall@example.com }`;
    case 'sms':
      return `- { id: ${id}, type: twilio, direction: outbound, mode: sms, accountSid: AC…, authToken: "\${secret:twilio/auth-token}", from: "+15550100000" }`;
    case 'voice':
      return `- { id: ${id}, type: twilio, direction: outbound, mode: voice, accountSid: AC…, authToken: "\${secret:twilio/auth-token}", from: "+15550100000" }   # and a type: twilio source naming it (§21.4)`;
    case 'push':
      return `- { id: ${id}, type: ntfy, direction: outbound, server: https://ntfy.example.com }   # or type: pushover (§21.3)`;
    case 'slack':
      return `- { id: ${id}, type: slack, direction: outbound, token: "\${secret:slack/bot-token}" }`;
    case 'telegram':
      return `- { id: ${id}, type: telegram, direction: outbound, token: "\${secret:telegram/bot-token}" }`;
  }
}

/**
 * A phone number as E.164 (`+4915112345678`) from the vendors' forms: Opsgenie's `49-15112345678`,
 * PagerDuty's `country_code` plus national `address`, or already `+…`. Null when it is not a number.
 */
export function e164(countryCode: string | number | null, number: string): string | null {
  const digits = number.replace(/[\s().]/g, '');
  let full: string;
  if (digits.startsWith('+')) full = `+${digits.slice(1).replace(/-/g, '')}`;
  else if (countryCode !== null) full = `+${String(countryCode)}${digits.replace(/-/g, '').replace(/^0+/, '')}`;
  else {
    const m = /^(\d{1,3})-(\d+)$/.exec(digits);
    if (m === null) return null;
    full = `+${m[1]}${m[2]}`;
  }
  return /^\+[1-9]\d{6,14}$/.test(full) ? full : null;
}
