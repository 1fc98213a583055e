/**
 * `slack` channel (contract §9.5): messages through the Slack Web API with a bot token. A message to a
 * person (their contact, oncall.yaml) is a direct message to their Slack user (scopes `im:write` and
 * `chat:write`); one that names no person goes to the channel's own recipient — the `user`'s direct
 * message, or with `conversation` (§24.2) that shared channel itself, which the bot must have been
 * invited to (`chat:write`; no conversations.open):
 *
 *   POST {apiUrl}/conversations.open  {"users": "<user>"}                 → channel.id (cached per user)
 *   POST {apiUrl}/chat.postMessage    {"channel", "text", "unfurl_links": false}
 *
 * A page's message takes its last look (WireGate, §17.4) right before the call that shows it —
 * `chat.postMessage` or `chat.update` — never before `conversations.open`: a slow first call cannot
 * carry an escalation past an acknowledgement.
 *
 * A page's message (§18.1) is edited in place as the page changes — `chat.update {"channel", "ts",
 * "text", "blocks"}` on the `channel` and `ts` of its first post, which the notifier finds in the
 * page's delivery records and hands over as `pageMessage` — and joining alerts are thread replies
 * (`chat.postMessage` with `thread_ts`). In a shared conversation a status change is a thread reply
 * too, besides the edit: an edit notifies nobody, and the room should see who took the page.
 *
 * Slack answers API errors with HTTP 200 and `{"ok": false, "error": "<code>"}`
 * (https://api.slack.com/web#responses); rate limits with HTTP 429, `Retry-After: <seconds>` and
 * `error: "ratelimited"` (https://api.slack.com/docs/rate-limits). The token never appears in a
 * result: every text that leaves this file passes through `safeSnippet` with the token redacted.
 */
import type { SlackChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { startDeadline } from '../../core/deadline.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT, isJoinNotice, messageText, textWithLinks } from './channel.js';
import { pageBlocks } from './slack-blocks.js';
import { parseJsonObject, parseRetryAfter, safeSnippet } from './http-channel.js';
import type { HttpAttempt } from './http-client.js';
import { postJson } from './http-client.js';

/** Slack error codes a retry cannot fix: the configuration or the message must change. */
const PERMANENT_ERRORS: ReadonlySet<string> = new Set([
  'invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'channel_not_found', 'user_not_found',
  'missing_scope', 'not_in_channel', 'is_archived', 'msg_too_long', 'no_text',
]);
/** Errors that say the token itself is unusable: the channel reports not ready until a success. */
const AUTH_ERRORS: ReadonlySet<string> = new Set([
  'invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'missing_scope',
]);
/** Errors after which a cached DM channel id may be stale. */
const STALE_CHANNEL_ERRORS: ReadonlySet<string> = new Set(['channel_not_found', 'is_archived', 'not_in_channel']);
/** Page changes that a shared conversation also hears as a thread reply (a direct message is only edited). */
const STATUS_KINDS: ReadonlySet<string> = new Set(['acknowledged', 'unacknowledged', 'resolved']);
/** Errors that say a page's earlier message can no longer be edited or replied to: a new message takes its place. */
const GONE_ERRORS: ReadonlySet<string> = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed', 'thread_not_found']);
/** Slack's JSON answers are small; anything bigger is not Slack. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

type Call = { ok: true; data: Record<string, unknown> } | { ok: false; result: DeliveryResult; slackError?: string };

export function createSlackChannel(config: SlackChannelConfig, deps: { clock: Clock }): Channel {
  const apiUrl = config.apiUrl.replace(/\/+$/, '');
  const secrets = [config.token];
  const dmChannels = new Map<string, string>();
  let closed = false;
  let healthy = true;

  /** One Web API call; `gate`: a call that shows a page's message, behind its last look. */
  async function call(method: string, body: Record<string, unknown>, signal: AbortSignal,
    timedOut: () => boolean, gate?: WireGate): Promise<Call> {
    const attempt = await postJson(`${apiUrl}/${method}`, body, {
      headers: { 'Authorization': `Bearer ${config.token}`, 'Content-Type': 'application/json; charset=utf-8' },
      timeoutMs: config.timeoutMs,
      signal,
      maxBodyBytes: MAX_RESPONSE_BYTES,
      clock: deps.clock,
      ...(gate === undefined ? {} : { gate }),
    });
    return interpret(method, attempt, timedOut());
  }

  function interpret(method: string, attempt: HttpAttempt, timedOut: boolean): Call {
    const fail = (retryable: boolean, error: string, retryAfterMs?: number, slackError?: string): Call => {
      const text = `slack ${method}: ${safeSnippet(error, secrets)}`;
      const result: DeliveryResult = retryAfterMs === undefined
        ? { ok: false, retryable, error: text }
        : { ok: false, retryable, error: text, retryAfterMs };
      return slackError === undefined ? { ok: false, result } : { ok: false, result, slackError };
    };
    if (attempt.kind === 'timeout' || (attempt.kind === 'aborted' && timedOut)) {
      return fail(true, `timed out after ${config.timeoutMs} ms`);
    }
    if (attempt.kind === 'aborted') return fail(true, 'aborted');
    if (attempt.kind === 'cancelled') return { ok: false, result: NOT_SENT };
    if (attempt.kind === 'network') return fail(true, `network error: ${attempt.error}`);

    const { status, headers } = attempt;
    const data = parseJsonObject(attempt.body);
    const slackError = data && typeof data.error === 'string' ? data.error : undefined;
    if (status >= 200 && status < 300 && data?.ok === true) return { ok: true, data };
    if (status === 429 || slackError === 'ratelimited') {
      return fail(true, slackError ?? `HTTP ${status} rate limited`,
        parseRetryAfter(headers.get('retry-after'), deps.clock.now()), slackError);
    }
    if (slackError !== undefined) {
      const needed = data && typeof data.needed === 'string' ? ` (needed: ${data.needed})` : '';
      return fail(!PERMANENT_ERRORS.has(slackError), `${slackError}${needed}`, undefined, slackError);
    }
    if (status === 408 || status >= 500) return fail(true, `HTTP ${status}`);
    // A 4xx without a Slack body (404 on a wrong apiUrl, 401 from a proxy): retrying will not help.
    if (status >= 300 && status < 500) return fail(false, `HTTP ${status}`);
    return fail(true, `HTTP ${status}: unexpected response`);
  }

  async function openDm(user: string, signal: AbortSignal, timedOut: () => boolean): Promise<{ ok: true; id: string } | Call & { ok: false }> {
    const cached = dmChannels.get(user);
    if (cached !== undefined) return { ok: true, id: cached };
    const opened = await call('conversations.open', { users: user }, signal, timedOut);
    if (!opened.ok) return opened;
    const channel = opened.data.channel;
    const id = isRecord(channel) && typeof channel.id === 'string' ? channel.id : undefined;
    if (!id) return { ok: false, result: { ok: false, retryable: true, error: 'slack conversations.open: response without channel.id' } };
    dmChannels.set(user, id);
    return { ok: true, id };
  }

  /**
   * A page that already has a message here (§18.1): a join is a thread reply under it; any other
   * change edits it in place (`chat.update`: new text, the buttons of the new state), and an
   * escalation that pages the person again is also a thread reply, since an edit notifies nobody — as
   * is, in a shared conversation (§24.2), a status change. Null when the message is gone (deleted, too
   * old to edit): the caller posts a new one.
   */
  async function tellPageMessage(message: OutboundMessage, earlier: PageMessageRef, shared: boolean, text: string,
    blocks: ReturnType<typeof pageBlocks>, signal: AbortSignal, timedOut: () => boolean,
    gate?: WireGate): Promise<{ ok: true; detail: Record<string, string> } | (Call & { ok: false }) | null> {
    const reply = async (): Promise<Call> => call('chat.postMessage',
      { channel: earlier.channel, thread_ts: earlier.ts, text, unfurl_links: false }, signal, timedOut, gate);
    if (isJoinNotice(message)) {
      const replied = await reply();
      if (!replied.ok) return replied.slackError !== undefined && GONE_ERRORS.has(replied.slackError) ? null : replied;
      return { ok: true, detail: { channel: earlier.channel, ts: stringField(replied.data, 'ts') ?? '', thread_ts: earlier.ts } };
    }
    const updated = await call('chat.update',
      { channel: earlier.channel, ts: earlier.ts, text, ...(blocks === null ? {} : { blocks }) }, signal, timedOut, gate);
    if (!updated.ok) return updated.slackError !== undefined && GONE_ERRORS.has(updated.slackError) ? null : updated;
    const alsoReply = message.pageKind === 'escalation' || (shared && STATUS_KINDS.has(message.pageKind ?? ''));
    if (!alsoReply) return { ok: true, detail: { ...earlier } };
    const replied = await reply();
    if (!replied.ok) return replied;
    return { ok: true, detail: { ...earlier, reply_ts: stringField(replied.data, 'ts') ?? '' } };
  }

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    if (signal.aborted) return { ok: false, retryable: true, error: 'aborted' };
    // One deadline for the whole attempt (open + post), on top of the caller's signal.
    const attempt = startDeadline(config.timeoutMs, deps.clock, signal);
    const isTimedOut = (): boolean => attempt.why() === 'timeout';
    const settle = (failed: Call & { ok: false }): DeliveryResult => {
      if (!signal.aborted && failed.result !== NOT_SENT) {
        const authError = failed.slackError !== undefined && AUTH_ERRORS.has(failed.slackError);
        const r = failed.result;
        healthy = !authError && (r.ok || !r.retryable);
      }
      return failed.result;
    };
    try {
      // A page message's buttons are its one way to act (§24.1): no link or command line beside them.
      const text = escapeSlackText(message.pageId === undefined ? textWithLinks(message) : messageText(message, { buttons: true }));
      const blocks = pageBlocks(message, text);
      const to = destinationOf(message, config);
      if (to === null) {
        return { ok: false, retryable: false, error: `slack channel ${config.id} has no \`user\` or \`conversation\`: it sends only to people's contacts` };
      }
      const earlier = pageMessageRef(message);
      if (earlier !== null) {
        const told = await tellPageMessage(message, earlier, 'conversation' in to, text, blocks, attempt.signal, isTimedOut, gate);
        if (told !== null) {
          if (!told.ok) return settle(told);
          healthy = true;
          return { ok: true, detail: told.detail };
        }
      }
      const dm = 'conversation' in to ? { ok: true as const, id: to.conversation } : await openDm(to.user, attempt.signal, isTimedOut);
      if (!dm.ok) return settle(dm);
      const posted = await call('chat.postMessage',
        { channel: dm.id, text, ...(blocks === null ? {} : { blocks }), unfurl_links: false }, attempt.signal, isTimedOut, gate);
      if (!posted.ok) {
        if ('user' in to && posted.slackError !== undefined && STALE_CHANNEL_ERRORS.has(posted.slackError)) dmChannels.delete(to.user);
        return settle('conversation' in to ? withInviteHint(posted, to.conversation) : posted);
      }
      healthy = true;
      return { ok: true, detail: { channel: stringField(posted.data, 'channel') ?? dm.id, ts: stringField(posted.data, 'ts') ?? '' } };
    } finally {
      attempt.dispose();
    }
  }

  return {
    id: config.id,
    type: 'slack',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    // Acknowledged and unacknowledged reach Slack too, so the page message shows who took it (§18.1).
    followsPageState: true,
    updatesPageMessages: true,
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `slack: internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    /** False after an auth error, a timeout, a network error or a 5xx, until a message goes through. */
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      dmChannels.clear();
      return Promise.resolve();
    },
  };
}

/**
 * Slack reads `&`, `<` and `>` as control characters (`<url|label>`, `<@U123>`): they must be sent as
 * HTML entities, and only those three (https://api.slack.com/reference/surfaces/formatting#escaping).
 * Alert text like "latency > 5s" would otherwise be mangled.
 */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface PageMessageRef { channel: string; ts: string }

/**
 * Where a message goes: a person's direct message (their contact, `to`); a message that names no
 * person to the channel's own recipient — its shared `conversation` (§24.2) or its `user`'s direct
 * message; null when it has neither (it sends only to people's contacts, config/own-recipient.ts).
 */
function destinationOf(message: OutboundMessage, config: SlackChannelConfig): { user: string } | { conversation: string } | null {
  if (message.to !== undefined) return { user: message.to };
  if (config.conversation !== undefined) return { conversation: config.conversation };
  return config.user === undefined ? null : { user: config.user };
}

/** The page's earlier message on this channel, when the notifier found one with Slack's `channel` and `ts`. */
function pageMessageRef(message: OutboundMessage): PageMessageRef | null {
  const channel = message.pageMessage?.channel;
  const ts = message.pageMessage?.ts;
  if (message.pageId === undefined || channel === undefined || ts === undefined || channel === '' || ts === '') return null;
  return { channel, ts };
}

/** A bot posts only where it was invited (a private channel it is not in does not exist for it): the dead letter says so. */
function withInviteHint(failed: Call & { ok: false }, conversation: string): Call & { ok: false } {
  const r = failed.result;
  if (r.ok || (failed.slackError !== 'not_in_channel' && failed.slackError !== 'channel_not_found')) return failed;
  return { ...failed, result: { ...r, error: `${r.error} (is the Slack app in ${conversation}? invite it there: /invite @<app name>)` } };
}

function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
