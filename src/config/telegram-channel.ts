/**
 * `type: telegram` in channels.yaml (contract §21.5): page messages through a Telegram bot
 * (https://core.telegram.org/bots/api), answered with inline buttons that come back by long polling
 * `getUpdates` — no inbound port. A person's contact on the channel is the chat id of their private
 * chat with the bot; `chat` is the channel's own recipient, for `channel:` targets and agents without
 * oncall.yaml.
 */
import { z } from 'zod';

/** A chat id: a user's (positive) or a group's (negative, `-100…` for supergroups); at most 52 significant bits, so digits. */
export const TELEGRAM_CHAT_ID = /^-?[1-9]\d{0,19}$/;
/** A bot token as @BotFather issues it: `<bot id>:<secret>`. The bot id alone is no secret (it names the bot). */
export const TELEGRAM_TOKEN = /^(\d{1,20}):[A-Za-z0-9_-]{20,100}$/;

/** The bot's id: the token's part before the colon (the part that is no secret). */
export function telegramBotId(token: string): string {
  return TELEGRAM_TOKEN.exec(token)?.[1] ?? 'unknown';
}

/** Builds the channel's schema with the keys every channel shares (id, direction, maxAttempts, timeoutMs) and the house URL type. */
export function telegramChannel<S extends z.ZodRawShape>(shared: S, httpUrl: z.ZodType<string>) {
  return z.strictObject({
    ...shared,
    type: z.literal('telegram'),
    /** The bot's token, a `${secret:…}` reference: it is part of every request URL (`<apiUrl>/bot<token>/<method>`). */
    token: z.string().regex(TELEGRAM_TOKEN, 'must be a Telegram bot token as @BotFather gives it: <bot id>:<secret>'),
    /** The channel's own recipient: the chat of messages that name no person. */
    chat: z.union([z.string(), z.number().int()]).transform(String)
      .pipe(z.string().regex(TELEGRAM_CHAT_ID, 'must be a Telegram chat id, e.g. 123456789 or -1001234567890')).optional(),
    apiUrl: httpUrl.default('https://api.telegram.org'),
  });
}
