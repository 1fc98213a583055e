/**
 * `telegram` channel (contract §21.5): a message from a bot to a chat (a person's contact is the chat
 * id of their private chat with the bot) through the Bot API (telegram-api.ts):
 *
 *   sendMessage     {"chat_id", "text", "link_preview_options": {"is_disabled": true}, "reply_markup": {"inline_keyboard": …}}
 *   editMessageText {"chat_id", "message_id", "text", "link_preview_options", "reply_markup"}
 *
 * Plain text, no `parse_mode`: an alert's labels are someone else's text, and without a parse mode
 * Telegram shows every character as it is — nothing to escape, nothing to inject. A page's message
 * carries the buttons of telegram-keyboard.ts and is edited in place as the page changes, like Slack's
 * (§18.1): the notifier hands over the `chat_id` and `message_id` of its first post (`pageMessage`,
 * from the page's `message.delivered` rows). A joining alert, and an escalation that pages the person
 * again, is a reply to that message (an edit notifies nobody). A message Telegram no longer has is
 * posted anew; "message is not modified" is no failure.
 *
 * `ok: false` answers are failures with Telegram's `error_code` and `description`
 * (`telegram sendMessage 403: Forbidden: bot was blocked by the user`); 429 waits
 * `parameters.retry_after`, 5xx are retried, the rest given up. The Bot API has no idempotency key: a
 * retry after a lost answer may post twice.
 */
import type { TelegramChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT, isJoinNotice, messageText, textWithLinks } from './channel.js';
import { safeSnippet } from './http-channel.js';
import type { TelegramAnswer } from './telegram-api.js';
import { telegramApi } from './telegram-api.js';
import type { InlineKeyboard } from './telegram-keyboard.js';
import { pageKeyboard } from './telegram-keyboard.js';

/** A message's text is 1-4096 characters (https://core.telegram.org/bots/api#sendmessage). */
export const MAX_TEXT_CHARS = 4096;
/** The delivery detail keys of a page message (what `pageMessage` carries back). */
export const TELEGRAM_PAGE_MESSAGE_KEYS = ['chat_id', 'message_id'] as const;
/** Descriptions that say a page's earlier message cannot be edited or replied to: a new message takes its place. */
const GONE = /message to edit not found|message can't be edited|MESSAGE_ID_INVALID|message to be replied not found/i;
/** Editing a message into what it already says: nothing to do. */
const NOT_MODIFIED = /message is not modified/i;

type Failed = Extract<TelegramAnswer, { ok: false }>;

/** The text cut to Telegram's limit, never half a surrogate pair. */
export function telegramText(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) return text;
  let cut = text.slice(0, MAX_TEXT_CHARS - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

interface PageMessageRef { chat_id: string; message_id: string }

export function createTelegramChannel(config: TelegramChannelConfig, deps: { clock: Clock }): Channel {
  const api = telegramApi(config, deps.clock);
  let closed = false;
  let healthy = true;

  async function tellEarlier(message: OutboundMessage, earlier: PageMessageRef, text: string, keyboard: InlineKeyboard | null,
    signal: AbortSignal, gate?: WireGate): Promise<{ ok: true; detail: Record<string, string> } | Failed | null> {
    const chat = Number(earlier.chat_id);
    const reply = (): Promise<TelegramAnswer> => api.call('sendMessage', { chat_id: chat, text, link_preview_options: { is_disabled: true },
      reply_parameters: { message_id: Number(earlier.message_id), allow_sending_without_reply: true } }, signal, config.timeoutMs, gate);
    const replied = (answer: TelegramAnswer): { ok: true; detail: Record<string, string> } | Failed =>
      (answer.ok ? { ok: true, detail: { ...earlier, reply_message_id: messageIdOf(answer.result) } } : answer);
    if (isJoinNotice(message)) return replied(await reply());
    const edited = await api.call('editMessageText', { chat_id: chat, message_id: Number(earlier.message_id), text,
      link_preview_options: { is_disabled: true }, reply_markup: keyboard ?? { inline_keyboard: [] } }, signal, config.timeoutMs, gate);
    if (!edited.ok && !NOT_MODIFIED.test(edited.description ?? '')) return GONE.test(edited.description ?? '') ? null : edited;
    if (message.pageKind !== 'escalation') return { ok: true, detail: { ...earlier } };
    return replied(await reply());
  }

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const chat = message.to ?? config.chat;
    if (chat === undefined) return { ok: false, retryable: false, error: `telegram channel ${config.id} has no \`chat\`: it sends only to people's contacts` };
    // A page message's buttons are its one way to act (§24.1). Plain text, no parse_mode: nothing to escape.
    const text = telegramText(message.pageId === undefined ? textWithLinks(message) : messageText(message, { buttons: true }));
    const keyboard = pageKeyboard(message);
    const earlier = pageMessageRef(message);
    if (earlier !== null) {
      const told = await tellEarlier(message, earlier, text, keyboard, signal, gate);
      if (told !== null) return settle(told, signal);
    }
    const posted = await api.call('sendMessage', { chat_id: Number(chat), text, link_preview_options: { is_disabled: true },
      ...(keyboard === null || keyboard.inline_keyboard.length === 0 ? {} : { reply_markup: keyboard }) }, signal, config.timeoutMs, gate);
    if (!posted.ok) return settle(posted, signal);
    return settle({ ok: true, detail: { chat_id: chatIdOf(posted.result) ?? chat, message_id: messageIdOf(posted.result) } }, signal);
  }

  /** The channel's readiness follows its last outcome: bad credentials or a retryable failure make it not ready. */
  function settle(outcome: { ok: true; detail: Record<string, string> } | Failed, signal: AbortSignal): DeliveryResult {
    if (outcome.ok) {
      healthy = true;
      return outcome;
    }
    if (outcome.notSent === true) return NOT_SENT;
    if (!signal.aborted) healthy = outcome.code !== 401 && outcome.code !== 404 && !outcome.retryable;
    const { ok, retryable, error, retryAfterMs } = outcome;
    return retryAfterMs === undefined ? { ok, retryable, error } : { ok, retryable, error, retryAfterMs };
  }

  return {
    id: config.id,
    type: 'telegram',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    // Acknowledged and unacknowledged reach Telegram too, so the page message shows who took it.
    followsPageState: true,
    updatesPageMessages: true,
    pageMessageKeys: TELEGRAM_PAGE_MESSAGE_KEYS,
    // Each call has `timeoutMs` of its own: an edit and its reply take at most twice that.
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `telegram: internal error: ${safeSnippet(errorText(err), api.secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}

function pageMessageRef(message: OutboundMessage): PageMessageRef | null {
  const chat = message.pageMessage?.chat_id;
  const id = message.pageMessage?.message_id;
  if (message.pageId === undefined || chat === undefined || id === undefined || !/^-?\d{1,20}$/.test(chat) || !/^\d{1,20}$/.test(id)) return null;
  return { chat_id: chat, message_id: id };
}

/** A sent Message's `message_id` (as text: delivery details are strings). */
function messageIdOf(result: unknown): string {
  const id = typeof result === 'object' && result !== null ? (result as { message_id?: unknown }).message_id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : '';
}

function chatIdOf(result: unknown): string | undefined {
  const chat = typeof result === 'object' && result !== null ? (result as { chat?: { id?: unknown } }).chat : undefined;
  return typeof chat?.id === 'number' && Number.isSafeInteger(chat.id) ? String(chat.id) : undefined;
}
