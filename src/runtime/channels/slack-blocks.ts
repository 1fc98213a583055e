/**
 * Block Kit for page messages (contract §18.1): the text as a section, then the buttons Acknowledge,
 * Resolve and Escalate whose `action_id`s the `type: slack` source answers, `value` the page id.
 * The plain `text` beside the blocks stays the notification and screen-reader fallback.
 */
import type { OutboundMessage } from './channel.js';

/** The buttons' action ids: the Slack source maps exactly these to page actions. */
export const SLACK_ACTION_IDS = { ack: 'svc_ack', resolve: 'svc_resolve', escalate: 'svc_escalate' } as const;

/** A section's text is at most 3,000 characters in Block Kit; longer is cut with an ellipsis. */
const MAX_SECTION_CHARS = 3_000;

const button = (text: string, actionId: string, pageId: string, style?: 'primary' | 'danger'): Record<string, unknown> => ({
  type: 'button', text: { type: 'plain_text', text }, action_id: actionId, value: pageId, ...(style === undefined ? {} : { style }) });

/** Blocks of a firing page's message; null for anything else (plain text is enough). */
export function pageBlocks(message: OutboundMessage, escapedText: string): Array<Record<string, unknown>> | null {
  if (message.pageId === undefined || message.status !== 'firing') return null;
  const text = escapedText.length > MAX_SECTION_CHARS ? `${escapedText.slice(0, MAX_SECTION_CHARS - 1)}…` : escapedText;
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    { type: 'actions', block_id: 'svc_page', elements: [
      button('Acknowledge', SLACK_ACTION_IDS.ack, message.pageId, 'primary'),
      button('Resolve', SLACK_ACTION_IDS.resolve, message.pageId),
      button('Escalate', SLACK_ACTION_IDS.escalate, message.pageId, 'danger'),
    ] },
  ];
}
