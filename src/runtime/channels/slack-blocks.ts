/**
 * Block Kit for page messages (contract §18.1, §24.1): the text as a section, then the buttons that
 * still make sense in the page's state (oncall/page-message-model.ts), whose `action_id`s the
 * `type: slack` source answers, `value` the page id — Acknowledge / Resolve / Escalate while
 * triggered, Resolve once acknowledged, none once resolved. The buttons are the message's one way to
 * act: no command line or link line beside them. A message updated in place (`chat.update`) gets the blocks of its new state, so
 * nobody presses Acknowledge on a page someone already took. The plain `text` beside the blocks stays
 * the notification and screen-reader fallback.
 */
import type { PageAction } from '../../oncall/page-message-model.js';
import { actionLabel } from '../../oncall/page-text.js';
import type { OutboundMessage } from './channel.js';
import { pageActions } from './channel.js';

/** The buttons' action ids: the Slack source maps exactly these to page actions. */
export const SLACK_ACTION_IDS = { ack: 'svc_ack', resolve: 'svc_resolve', escalate: 'svc_escalate' } as const;

/** A section's text is at most 3,000 characters in Block Kit; longer is cut with an ellipsis. */
const MAX_SECTION_CHARS = 3_000;

type Block = Record<string, unknown>;

const button = (text: string, actionId: string, pageId: string, style?: 'primary' | 'danger'): Block => ({
  type: 'button', text: { type: 'plain_text', text }, action_id: actionId, value: pageId, ...(style === undefined ? {} : { style }) });

const STYLE: Readonly<Record<PageAction, 'primary' | 'danger' | undefined>> = { ack: 'primary', resolve: undefined, escalate: 'danger' };

/** The buttons a page message shows, by what the message tells of its page. */
function buttons(message: OutboundMessage & { pageId: string }): Block[] {
  return pageActions(message).map((a) => button(actionLabel(a), SLACK_ACTION_IDS[a], message.pageId, STYLE[a]));
}

/** Blocks of a page's message in its page's state; null for a message that belongs to no page (plain text is enough). */
export function pageBlocks(message: OutboundMessage, escapedText: string): Block[] | null {
  if (message.pageId === undefined) return null;
  const text = escapedText.length > MAX_SECTION_CHARS ? `${escapedText.slice(0, MAX_SECTION_CHARS - 1)}…` : escapedText;
  const section: Block = { type: 'section', text: { type: 'mrkdwn', text } };
  const elements = buttons({ ...message, pageId: message.pageId });
  return elements.length === 0 ? [section] : [section, { type: 'actions', block_id: 'svc_page', elements }];
}
