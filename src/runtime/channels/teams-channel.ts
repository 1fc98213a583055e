/**
 * `teams` channel (contract §18.3): an Adaptive Card 1.2 POSTed to a Microsoft Teams Workflows
 * webhook ("When a Teams webhook request is received" → "Post card in a chat or channel"). Workflows
 * take exactly this envelope; the retired Office 365 connectors' MessageCard is not accepted.
 *
 *   {"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive",
 *     "content":{"$schema":…,"type":"AdaptiveCard","version":"1.2","body":[…],"actions":[…]}}]}
 *
 * Workflows answer 202 Accepted; 429 carries Retry-After. The URL holds the workflow's signature
 * (`sig=`), so it is a secret: it never appears in a result.
 */
import type { TeamsChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { Channel, OutboundMessage } from './channel.js';
import { linkActions, messageText } from './channel.js';
import { actionLabel } from '../../oncall/page-text.js';
import { createHttpChannel, safeSnippet } from './http-channel.js';
import { classifyWebhookStatus } from './webhook-channel.js';

const ERROR_BODY_BYTES = 2048;

/** A bare URL in the text: left as it is written but for the characters that could make Markdown. */
const URL_IN_TEXT = /https?:\/\/[^\s<>]+/g;
/**
 * What makes a link, emphasis, code or an autolink outside a URL (CommonMark §6), and the escape
 * itself. Parentheses, `!` and list markers stay: without `[` `]` no link or image can form, and a
 * backslash before every `(` is what Teams' older mobile clients would show.
 */
const MARKDOWN_PUNCTUATION = /[\\`*_[\]<>]/g;
/** Inside a URL: the same but `_` (common in paths, and inside a word it starts no emphasis), percent-encoded (RFC 3986 §2.1). */
const URL_MARKDOWN = /[[\]*`\\<>]/g;

/**
 * Text as a TextBlock shows it literally (issue 33, Low): a TextBlock renders a Markdown subset —
 * bold, italic, lists and `[text](url)` links — and this text carries alert labels and annotations
 * from outside, so a label `[Acknowledge](https://evil.example/)` would be a link dressed as ours.
 */
export function escapeTeamsMarkdown(text: string): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    out += text.slice(at, m.index).replace(MARKDOWN_PUNCTUATION, '\\$&');
    out += m[0].replace(URL_MARKDOWN, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    at = m.index + m[0].length;
  }
  return out + text.slice(at).replace(MARKDOWN_PUNCTUATION, '\\$&');
}

/** The card for a message (pure): the alert as the heading, what happened below, facts, and links when there are any. */
export function teamsCard(message: OutboundMessage): Record<string, unknown> {
  const resolved = message.status === 'resolved';
  // The card's link buttons are a page message's one way to act when the person has links (§24.1); else its text says what to type.
  const [first = '', ...rest] = messageText(message, { buttons: message.links !== undefined }).split('\n');
  const facts = [
    { title: 'Severity', value: message.severity },
    ...(message.pageId === undefined ? [] : [{ title: 'Page', value: message.pageId }]),
    { title: 'Agent', value: message.agentId },
    { title: 'Event', value: message.eventId },
  ];
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', text: escapeTeamsMarkdown(first), weight: 'Bolder', size: 'Medium', wrap: true, color: resolved ? 'Good' : 'Attention' },
    ...(rest.length === 0 ? [] : [{ type: 'TextBlock', text: escapeTeamsMarkdown(rest.join('\n\n')), wrap: true }]),
    { type: 'FactSet', facts },
  ];
  const links = linkActions(message);
  const actions = links.map((l) => ({ type: 'Action.OpenUrl', title: actionLabel(l.action), url: l.url }));
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.2', body,
        ...(actions.length === 0 ? {} : { actions }) },
    }],
  };
}

export function createTeamsChannel(config: TeamsChannelConfig, deps: { clock: Clock }): Channel {
  const secrets = [config.url, new URL(config.url).searchParams.get('sig') ?? ''];
  return createHttpChannel({
    id: config.id, type: 'teams', url: config.url, timeoutMs: config.timeoutMs, maxAttempts: config.maxAttempts, secrets,
    errorPrefix: 'teams: ', maxResponseBytes: ERROR_BODY_BYTES, body: teamsCard,
    classify: (status, headers, body, nowMs) => {
      const result = classifyWebhookStatus(status, headers, safeSnippet(body, secrets), nowMs);
      return result.ok ? result : { ...result, error: `teams: ${result.error}` };
    },
  }, deps);
}
