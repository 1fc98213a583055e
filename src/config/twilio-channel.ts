/**
 * `type: twilio` in channels.yaml and event-sources.yaml (contract §21.4). The channel sends SMS
 * (`mode: sms`) or places calls (`mode: voice`) through Twilio's REST API with Basic auth
 * `<accountSid>:<authToken>`; the source is the listener Twilio calls back — SMS replies, a call's
 * TwiML and its digits, call status — every request signed with that channel's auth token. A person's
 * contact on the channel is a phone number in E.164; `to` is the channel's own recipient, for
 * `channel:` targets and agents without oncall.yaml.
 */
import { z } from 'zod';

/** E.164: `+`, a country code that does not start with 0, at most 15 digits in all (ITU-T E.164 §6). */
export const E164 = /^\+[1-9]\d{1,14}$/;
const phone = z.string().regex(E164, 'must be a phone number in E.164, e.g. +4915112345678 (quote it in YAML)');

export const TWILIO_MODES = ['sms', 'voice'] as const;
export type TwilioMode = (typeof TWILIO_MODES)[number];

/** Builds the channel's schema with the keys every channel shares (id, direction, maxAttempts, timeoutMs) and the house URL type. */
export function twilioChannel<S extends z.ZodRawShape>(shared: S, httpUrl: z.ZodType<string>) {
  return z.strictObject({
    ...shared,
    type: z.literal('twilio'),
    /** The account (`AC` + 32 hex digits): the REST path and the Basic auth user. */
    accountSid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio Account SID: AC followed by 32 hex digits'),
    /** The account's auth token: the Basic auth password and the key of every signature the source checks; a `${secret:…}` reference. */
    authToken: z.string().regex(/^[0-9a-fA-F]{32}$/, 'must be a Twilio auth token: 32 hex digits (Console → Account info)'),
    /** The Twilio number messages and calls come from. */
    from: phone,
    mode: z.enum(TWILIO_MODES),
    /** The channel's own recipient: the number of messages that name no person. */
    to: phone.optional(),
    apiUrl: httpUrl.default('https://api.twilio.com'),
  });
}

/** Builds the source's schema with the keys every listener source shares (id, port, bind, maxConnections) and the house id type. */
export function twilioSource<S extends z.ZodRawShape>(shared: S, id: z.ZodType<string>) {
  return z.strictObject({
    ...shared,
    type: z.literal('twilio'),
    /**
     * How Twilio reaches this listener (a reverse proxy's https URL): SMS replies come to
     * `<publicUrl>/sms`, calls fetch `<publicUrl>/voice/<token>`, call status goes to
     * `<publicUrl>/status/<token>`. Signatures are computed over it, so it must be exactly what Twilio requests.
     */
    publicUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://svc.example.com/twilio' })
      .refine((u) => !u.includes('?') && !u.includes('#'), 'must not carry a query or a fragment (paths are appended to it)')
      .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'must not carry credentials'),
    /** The `type: twilio` channel whose calls this source serves and whose auth token checks the signatures. */
    channel: id,
  });
}
