/**
 * `type: pushover` in channels.yaml (contract §21.3): Pushover's Message API
 * (https://pushover.net/api). A person's contact on the channel is a user or group key; `user` is the
 * channel's own recipient. P1 pages go out at emergency priority, repeated by Pushover every `retry`
 * seconds until acknowledged or `expire` seconds have passed (https://pushover.net/api#priority).
 */
import { z } from 'zod';

/** A Pushover user or group key, and an application token: 30 letters and digits. */
export const PUSHOVER_KEY = /^[A-Za-z0-9]{30}$/;
/** Pushover's bounds for emergency messages: `retry` at least 30 s, `expire` at most 10,800 s (3 h). */
export const PUSHOVER_EMERGENCY = { retryMinS: 30, expireMaxS: 10_800, retryDefaultS: 60, expireDefaultS: 3_600 } as const;

const seconds = (min: number, max: number) => z.number().int(`must be a whole number of seconds, ${min}..${max}`)
  .min(min, `must be at least ${min} seconds`).max(max, `must be at most ${max} seconds`);

/** Builds the schema with the keys every channel shares (id, direction, maxAttempts, timeoutMs). */
export function pushoverChannel<S extends z.ZodRawShape>(shared: S) {
  return z.strictObject({
    ...shared,
    type: z.literal('pushover'),
    /** The application's API token: a `${secret:…}` reference. */
    token: z.string().regex(PUSHOVER_KEY, 'must be a Pushover application token (30 letters and digits)'),
    apiUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine((u) => !u.includes('?') && !u.includes('#'), 'must not carry a query or a fragment').default('https://api.pushover.net/1'),
    /** The channel's own recipient: the user or group key of messages that name no person. */
    user: z.string().regex(PUSHOVER_KEY, 'must be a Pushover user or group key (30 letters and digits)').optional(),
    /** Seconds between Pushover's repeats of an emergency (P1) message until someone acknowledges it. */
    retry: seconds(PUSHOVER_EMERGENCY.retryMinS, PUSHOVER_EMERGENCY.expireMaxS).default(PUSHOVER_EMERGENCY.retryDefaultS),
    /** Seconds an emergency message keeps repeating; after it, it stays on the phone but no longer asks for an ack. */
    expire: seconds(PUSHOVER_EMERGENCY.retryMinS, PUSHOVER_EMERGENCY.expireMaxS).default(PUSHOVER_EMERGENCY.expireDefaultS),
  }).superRefine((c, ctx) => {
    // The shared keys are generic here: the two own keys read as what this schema makes them.
    const { retry, expire } = c as unknown as { retry: number; expire: number };
    if (retry > expire) {
      ctx.addIssue({ code: 'custom', path: ['retry'], message: `is longer than expire (${expire} s): the message would never repeat` });
    }
  });
}
