/**
 * `type: ntfy` in channels.yaml (contract §21.2): push notifications through an ntfy server
 * (https://docs.ntfy.sh/publish/). A person's contact on the channel is a topic; `topic` is the
 * channel's own recipient, for `channel:` targets and agents without oncall.yaml.
 */
import { z } from 'zod';

/** An ntfy topic name, exactly as the ntfy server accepts it (server.go `topicRegex`). */
export const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const topic = z.string().regex(NTFY_TOPIC, 'must be an ntfy topic: 1-64 letters, digits, "-" and "_"');

/** Builds the schema with the keys every channel shares (id, direction, maxAttempts, timeoutMs). */
export function ntfyChannel<S extends z.ZodRawShape>(shared: S) {
  return z.strictObject({
    ...shared,
    type: z.literal('ntfy'),
    /** The ntfy server: `https://ntfy.sh` or your own; messages are POSTed to `<server>/<topic>`. */
    server: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://ntfy.example.com' })
      .refine((u) => !u.includes('?') && !u.includes('#'), 'must not carry a query or a fragment (the topic is appended as a path segment)'),
    /** An ntfy access token (`tk_…`), sent as `Authorization: Bearer`; a `${secret:…}` reference. */
    token: z.string().regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 visible ASCII characters (an ntfy access token)').optional(),
    /** The channel's own recipient: the topic of messages that name no person. */
    topic: topic.optional(),
  });
}
