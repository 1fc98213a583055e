/**
 * What a page message says (contract §24.1), as data: built once by the page planner when it plans a
 * round, stored on each notification of the round, and rendered by each channel in its own form
 * (page-text.ts for text; Slack blocks, a Teams card, Telegram and ntfy buttons). No channel works out
 * content of its own: what the page is about, what happened, who is paged now and next, and which
 * actions still make sense are decided here.
 *
 * Times stay instants: the message is rendered for its recipient, in their zone (§24.5), when sent.
 */
import { formatDuration } from '../core/duration.js';
import type { Policy, Severity } from './oncall-config.js';
import type { PageAlert, PageAlerts } from './page-alert.js';
import { alertCount } from './alert-identity.js';

/** Who an open page is paging now and who comes next (oncall/paged-now.ts works it out; the console shows it too). */
export interface PagedNow {
  /** 1-based step and how many the policy has. */
  step: number;
  steps: number;
  /** Who this step pages, in words: person ids, `nobody on call in S`, `channel C`. */
  now: string[];
  /** The step that follows when nobody acknowledges, and when (null: the page is acknowledged, or this was the last step). */
  next: { step: number; who: string[]; atMs: number } | null;
}

/** What happened to the page that this message tells. */
export const PAGE_HAPPENINGS = ['opened', 'reopened', 'joined', 'escalated', 'ack-timeout', 'exhausted', 'acknowledged', 'unacknowledged',
  'resolved',
  /** Told to people an escalation climbed past (§21.1 statusUpdates): who is paged now instead of them. */
  'escalated-past'] as const;
export type PageHappening = (typeof PAGE_HAPPENINGS)[number];

/** What a person can still do about the page (its buttons, links or command). */
export const PAGE_ACTIONS = ['ack', 'resolve', 'escalate'] as const;
export type PageAction = (typeof PAGE_ACTIONS)[number];

/** How the planner says what happened: an escalation says whether it was by hand; one past a person, whom it pages now. */
export type Happened = { kind: Exclude<PageHappening, 'escalated' | 'escalated-past'> } | { kind: 'escalated'; manual: boolean }
  | { kind: 'escalated-past'; manual: boolean; to: string[] };

export interface PageMessage {
  pageId: string;
  severity: Severity;
  title: string;
  /** The page's alerts (§24.1: each alert's own summary); empty for a page stored before they were kept. */
  alerts: PageAlert[];
  /** Alerts not listed. */
  moreAlerts: number;
  alertmanagerUrl?: string;
  /** A page stored before its alerts were kept: its link lines as they were (runbook, source). */
  factLines?: string[];
  happened: PageHappening;
  /** What happened, in words: `Page p… escalated: nobody acknowledged the previous step.` */
  said: string;
  /** Who is paged now and next; null once acknowledged or resolved. */
  paged: (PagedNow & { pass: { of: number; now: number } | null }) | null;
  /** When the message was planned: "next … in 5m" counts from here. */
  atMs: number;
  actions: PageAction[];
}

/** What of a page its message needs (page.ts's PageRecord has it all; named here so page.ts can hold a PageMessage). */
interface P {
  id: string;
  title: string;
  severity: Severity;
  policy: Pick<Policy, 'id' | 'repeat' | 'ackTimeoutMs'>;
  eventIds: readonly string[];
  alertIds?: readonly string[];
  loop: number;
  state: 'triggered' | 'acknowledged' | 'resolved';
  acknowledgedBy: string | null;
  resolvedBy: string | null;
  alerts?: PageAlerts;
  facts?: string[];
}

const noun = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

function saidOf(p: P, happened: Happened): string {
  switch (happened.kind) {
    case 'opened': return `Page ${p.id} opened.`;
    case 'reopened': return `Page ${p.id} reopened: it fired again after it was resolved.`;
    case 'joined': return `${noun(alertCount(p), 'alert')} now on page ${p.id}.`;
    case 'escalated': return happened.manual ? `Page ${p.id} escalated by hand.` : `Page ${p.id} escalated: nobody acknowledged the previous step.`;
    case 'ack-timeout': return `Page ${p.id} was acknowledged ${formatDuration(p.policy.ackTimeoutMs)} ago and is not resolved: paging again.`;
    case 'exhausted': return `Nobody acknowledged page ${p.id}: every step of policy ${p.policy.id} was tried ${p.policy.repeat + 1} time(s). It stays open.`;
    case 'acknowledged': return `Page ${p.id} acknowledged by ${p.acknowledgedBy ?? 'someone'}.`;
    case 'unacknowledged': return `Page ${p.id} is no longer acknowledged: escalation resumes.`;
    case 'resolved': return `Page ${p.id} resolved by ${p.resolvedBy ?? 'someone'}.`;
    case 'escalated-past': return `Page ${p.id} escalated${happened.manual ? ' by hand' : ''} to ${happened.to.length === 0 ? 'nobody' : happened.to.join(', ')}.`;
  }
}

/** The actions that still make sense in a page's state (§24.1): an acknowledged page can only be resolved; a resolved one, nothing. */
export function actionsIn(state: P['state']): PageAction[] {
  if (state === 'resolved') return [];
  if (state === 'acknowledged') return ['resolve'];
  return ['ack', 'resolve', 'escalate'];
}

/** The message of a page round (pure). `paged`: pagedNow(…) for a round that pages, null otherwise. */
export function pageMessage(page: P, happened: Happened, paged: PagedNow | null, nowMs: number): PageMessage {
  const stored = page.alerts;
  const kind = happened.kind;
  // A join to an acknowledged page tells of the alert, not of anyone paged (§24.1: only what still makes sense).
  const stillPaging = page.state === 'triggered' && paged !== null;
  return {
    pageId: page.id, severity: page.severity, title: page.title,
    alerts: stored?.alerts ?? [], moreAlerts: stored?.more ?? 0,
    ...(stored?.alertmanagerUrl === undefined ? {} : { alertmanagerUrl: stored.alertmanagerUrl }),
    ...(stored === undefined && page.facts !== undefined && page.facts.length > 0 ? { factLines: page.facts } : {}),
    happened: kind, said: saidOf(page, happened),
    paged: stillPaging ? { ...paged, pass: page.policy.repeat > 0 ? { now: page.loop + 1, of: page.policy.repeat + 1 } : null } : null,
    atMs: nowMs, actions: actionsIn(page.state),
  };
}
