/**
 * One page's messages as the page notifier hands them to a channel (contract §24.1): opened,
 * acknowledged and resolved, planned by the real page planner and rendered for a reader in
 * Europe/Berlin (§24.5) — what each channel's exact-bytes test sends. The alert's summary is hostile
 * on purpose (Slack and Markdown control characters, a link dressed as ours).
 */
import type { Policy } from '../../src/oncall/oncall-config.js';
import type { PageAlerts } from '../../src/oncall/page-alert.js';
import type { PageNotification } from '../../src/oncall/page.js';
import type { Actor, ResolveTargets } from '../../src/oncall/page-plan.js';
import { planAck, planOpen, planResolve } from '../../src/oncall/page-plan.js';
import type { AckLinks, OutboundMessage } from '../../src/runtime/channels/channel.js';
import { outboundOf } from '../../src/runtime/oncall/page-notifier.js';

export const STORY_PAGE = 'p7xq2m4k9a';
/** 2026-11-29 02:05Z: 03:05 in Berlin; the next step at 03:10 CET. */
export const STORY_OPENED_AT = Date.UTC(2026, 10, 29, 2, 5);
export const STORY_ALERTS: PageAlerts = { more: 0, alerts: [{
  name: 'CheckoutErrors on api-1',
  summary: 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge](https://evil.example/)',
  instance: 'api-1',
  runbookUrl: 'https://runbooks.example.com/checkout',
  sourceUrl: 'http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1',
}] };
export const STORY_LINKS: AckLinks = { ack: 'https://svc.example.com/ack/v1.ack-token', resolve: 'https://svc.example.com/ack/v1.resolve-token' };

const policy: Policy = { id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [], steps: [
  { notify: [{ kind: 'person', id: 'alice' }], afterMs: 5 * 60_000 },
  { notify: [{ kind: 'person', id: 'bob' }], afterMs: 10 * 60_000 },
] };

export interface PageStory {
  opened: OutboundMessage;
  acknowledged: OutboundMessage;
  resolved: OutboundMessage;
}

/**
 * The three messages alice gets on `channel` (her address `to` there), with her links when `links` (these links when given),
 * in `zone` (default Europe/Berlin), about `alerts` (default STORY_ALERTS).
 */
export function pageStory(channel: string, to: string,
  opts: { links?: boolean | AckLinks; zone?: string; severity?: 'P1' | 'P2' | 'P3'; alerts?: PageAlerts } = {}): PageStory {
  const resolve: ResolveTargets = (targets) => ({ nobodyOnCall: [], recipients: targets.flatMap((t) =>
    (t.kind === 'person' ? [{ person: t.id, channel, to: t.id === 'alice' ? to : `${to}-${t.id}` }] : [])) });
  const opened = planOpen({ pageId: STORY_PAGE, agentId: 'shop', incidentKey: 'checkout', policy, policySha256: 'sha',
    event: { id: 'e1', title: 'CheckoutErrors on api-1', severity: opts.severity ?? 'P1', alerts: opts.alerts ?? STORY_ALERTS }, nowMs: STORY_OPENED_AT, resolve });
  const alice: Actor = { actor: 'person:alice', by: 'alice', via: 'link' };
  const acked = planAck(opened.page, alice, null, STORY_OPENED_AT + 60_000,
    { follows: () => true, rings: () => false, listed: () => null });
  if (!acked.ok || acked.plan === null) throw new Error('the story page was not acknowledged');
  const resolved = planResolve(acked.plan.page, { actor: 'agent:shop', by: 'source', via: 'source' }, null, 'e2', STORY_OPENED_AT + 20 * 60_000);
  if (!resolved.ok || resolved.plan === null) throw new Error('the story page was not resolved');
  const zone = opts.zone ?? 'Europe/Berlin';
  const out = (n: PageNotification | undefined): OutboundMessage => {
    if (n === undefined) throw new Error('the story page sent nothing');
    // As the notifier does: links only while the page asks something of its person (page-notifier.ts linksFor).
    const links = opts.links === true ? STORY_LINKS : opts.links === false || opts.links === undefined ? null : opts.links;
    return outboundOf(n, 1, n.status === 'firing' ? links : null, zone);
  };
  return { opened: out(opened.notifications[0]), acknowledged: out(acked.plan.notifications[0]), resolved: out(resolved.plan.notifications[0]) };
}
