/**
 * The inline keyboard of a Telegram page message (contract §21.5): the buttons that still make sense in
 * the page's state (oncall/page-message-model.ts) — Acknowledge / Resolve / Escalate while triggered,
 * Resolve once acknowledged, none once resolved — like Slack's (slack-blocks.ts). Each button's `callback_data` is
 * `svc:<action>:<pageId>` (Telegram allows 1-64 bytes; a page id is at most 32), which comes back in
 * the `callback_query` of a press.
 */
import type { OutboundMessage } from './channel.js';
import { pageActions } from './channel.js';

export const TELEGRAM_ACTIONS = ['ack', 'resolve', 'escalate'] as const;
export type TelegramAction = (typeof TELEGRAM_ACTIONS)[number];

/** Telegram's limit on `callback_data` (https://core.telegram.org/bots/api#inlinekeyboardbutton). */
export const MAX_CALLBACK_DATA_BYTES = 64;

export const callbackData = (action: TelegramAction, pageId: string): string => `svc:${action}:${pageId}`;

/** The action and page of a button's `callback_data`, or null when it is not one of ours. */
export function parseCallbackData(data: unknown): { action: TelegramAction; pageId: string } | null {
  if (typeof data !== 'string' || Buffer.byteLength(data) > MAX_CALLBACK_DATA_BYTES) return null;
  const m = /^svc:(ack|resolve|escalate):(p[a-z0-9]{8,31})$/.exec(data);
  if (m === null) return null;
  return { action: m[1] as TelegramAction, pageId: m[2] ?? '' };
}

interface Button { text: string; callback_data: string }
export interface InlineKeyboard { inline_keyboard: Button[][] }

const LABELS: Readonly<Record<TelegramAction, string>> = { ack: 'Acknowledge', resolve: 'Resolve', escalate: 'Escalate' };

/** The keyboard of a page's message in its page's state; null for a message of no page. An empty one removes the buttons. */
export function pageKeyboard(message: OutboundMessage): InlineKeyboard | null {
  const pageId = message.pageId;
  if (pageId === undefined) return null;
  const actions = pageActions(message);
  return { inline_keyboard: actions.length === 0 ? [] : [actions.map((a) => ({ text: LABELS[a], callback_data: callbackData(a, pageId) }))] };
}
