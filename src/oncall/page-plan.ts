/**
 * The page planner (contract §17.3–§17.4): pure functions from a page, an action and an instant to the
 * plan that action writes — the page as it becomes, its audit rows (§17.10) and the notifications it
 * sends with their deliveryIds. Nothing here reads a clock, a store or a channel: the stores persist a
 * plan in one transaction, the page notifier sends what it committed. Who a `schedule:` target means is
 * asked of `resolve` at the moment of planning (the moment of sending, §17.2).
 *
 * Here: the rounds that page and the state each action leaves. Beside it: one notification and its row
 * (page-notice.ts), the rounds that only tell — ack, unack, resolve, an escalation past someone, a join
 * after the ack (status-rounds.ts) — and when a join notice may go out (join-spacing.ts).
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Policy, Severity, Target } from './oncall-config.js';
import type { NobodyOnCall } from './targets.js';
import type { NotificationKind, PageNotification, PagePlan, PageRecord, PersonalStep } from './page.js';
import { CHANNEL_TARGET } from './page.js';
import type { PageAlerts } from './page-alert.js';
import type { Happened } from './page-message-model.js';
import { pageMessage } from './page-message-model.js';
import { pageMessageText } from './page-text.js';
import type { Recipient } from './page-notice.js';
import { engineActor, entry, lastEvent, notice } from './page-notice.js';
import type { JoinsOut } from './join-spacing.js';
import { NO_JOINS_OUT, joinNoticeDueAtMs } from './join-spacing.js';
import type { NamesAt } from './paged-now.js';
import { pagedNowBy } from './paged-now.js';
import type { RulesOf } from './personal-steps.js';
import { firstRuleOnly, laterSteps, namedPeople, restartSteps } from './personal-steps.js';
import type { StatusRoute } from './status-updates.js';
import { PLAIN_STATUS_ROUTE } from './status-updates.js';
import { tellEscalatedPast, tellJoinAcked, tellStatus } from './status-rounds.js';
import { alertCount, newAlerts, rememberAlerts } from './alert-identity.js';

/** Who targets mean at an instant; `nobodyOnCall`, the targets that reached nobody. */
export interface Resolved {
  recipients: Recipient[];
  nobodyOnCall: NobodyOnCall[];
  /** The personal rules (§21.1) of the people among `recipients`; absent: every contact at once. */
  rules?: RulesOf;
}

/**
 * The `page.nobody-on-call` row's data for a target that reached nobody: `schedule` (nobody on call
 * there), `person` or `channel`, and `missing: true` when the files no longer have that person,
 * schedule or channel (a page keeps the policy it opened under; a reload renamed or removed them, or
 * a restart did, issue 33.4).
 */
export function nobodyData(n: NobodyOnCall): Record<string, string | boolean> {
  return { [n.target.kind]: n.target.id, ...(n.known ? {} : { missing: true }) };
}
export type ResolveTargets = (targets: readonly Target[], atMs: number) => Resolved;

export interface PageEvent {
  id: string;
  title: string;
  severity: Severity;
  /** The event's own links, one per line (runtime/providers/message-facts.ts); none: omit or empty. */
  facts?: string[];
  /** The event's alert name (label-name.ts `alertNameOf`), written on page.opened for reports (§23); none: omit. */
  alertname?: string;
  /** The identities of its firing alerts (oncall/alert-identity.ts); none: a payload without alerts. */
  alertIds?: string[];
  /** What its alerts say (summary, instance, links) for the page's messages (§24.1). */
  alerts?: PageAlerts;
}

/** page.opened's `alertname` when the event has one: a report counts pages per alert name without reading payloads. */
const alertnameOf = (event: PageEvent): { alertname?: string } => (event.alertname === undefined ? {} : { alertname: event.alertname });

/** Who acted, for audit rows: `actor` is the chain's actor, `by`/`via` the page's fields. */
export interface Actor {
  actor: string;
  by: string;
  via: 'cli' | 'slack' | 'link' | 'console' | 'source' | 'telegram' | 'sms' | 'voice' | 'pushover';
  /** The device an answer came from (Pushover's `acknowledged_by_device`, §21.3): the row's `data.device`. */
  device?: string;
}

export interface OpenInput {
  pageId: string;
  agentId: string;
  incidentKey: string;
  policy: Policy;
  policySha256: string;
  event: PageEvent;
  nowMs: number;
  resolve: ResolveTargets;
}

function stepOf(page: PageRecord): Policy['steps'][number] {
  const step = page.policy.steps[page.step - 1];
  if (step === undefined) throw new RangeError(`page ${page.id} stands at step ${page.step} of ${page.policy.steps.length}`);
  return step;
}

/**
 * One notification round: `round` goes up by one, every recipient gets a notification with the new
 * round in its deliveryId and a `page.notified` row; a schedule with nobody on call gets a
 * `page.nobody-on-call` row (and the step still counts as sent). People with personal rules get their
 * first rule's contacts now; a round that `pages` also makes their later rules steps of the page
 * (personal-steps.ts), a join notice does not.
 */
function notifyRound(page: PageRecord, targets: readonly Target[], kind: NotificationKind, happened: Happened, eventId: string,
  nowMs: number, resolve: ResolveTargets, audit: NewAuditEntry[], pages = kind === 'escalation'): PageNotification[] {
  const resolved = resolve(targets, nowMs);
  const message = pageMessage(page, happened, pagedNowBy(page, namesBy(resolve), nowMs), nowMs);
  page.round += 1;
  const actor = engineActor(page.agentId);
  for (const nobody of resolved.nobodyOnCall) {
    audit.push(entry(page, 'page.nobody-on-call', actor, { ...nobodyData(nobody), step: page.step, loop: page.loop }));
  }
  const rulesOf = resolved.rules ?? ((): undefined => undefined);
  if (pages) {
    setSteps(page, restartSteps(page.personalSteps ?? [], namedPeople(resolved.recipients),
      laterSteps(resolved.recipients, rulesOf, nowMs, pageMessageText(message, 'UTC', null), happened)));
  }
  return firstRuleOnly(resolved.recipients, rulesOf).map((r) => notice(page, r, kind, message, eventId, audit));
}

/** Who targets name at an instant, in the words of paged-now.ts, as the resolver that sends the round sees them. */
function namesBy(resolve: ResolveTargets): NamesAt {
  return (targets, atMs) => {
    const { recipients, nobodyOnCall } = resolve(targets, atMs);
    return [...recipients.map((r) => (r.person === CHANNEL_TARGET ? `channel ${r.channel}` : r.person)),
      ...nobodyOnCall.filter((n) => n.target.kind === 'schedule').map((n) => `nobody on call in ${n.target.id}`)];
  };
}

/**
 * A person's later rule fires: a round of its own to its contacts, each `page.notified` row naming the
 * rule; the message says again what the round that named them said, with who is paged as of now.
 */
function fireStep(page: PageRecord, step: PersonalStep, nowMs: number, resolve: ResolveTargets, audit: NewAuditEntry[]): PageNotification[] {
  page.round += 1;
  const message = pageMessage(page, step.happened ?? { kind: 'escalated', manual: false }, pagedNowBy(page, namesBy(resolve), nowMs), nowMs);
  return step.contacts.map((c) => notice(page, { person: step.person, channel: c.channel, to: c.to }, 'escalation', message, lastEvent(page),
    audit, { rule: step.rule }));
}

function setSteps(page: PageRecord, steps: PersonalStep[]): void {
  if (steps.length > 0) page.personalSteps = steps;
  else delete page.personalSteps;
}

function copy(page: PageRecord): PageRecord {
  const out: PageRecord = { ...page, eventIds: [...page.eventIds], notified: page.notified.map((n) => ({ ...n })), version: page.version + 1 };
  if (page.personalSteps !== undefined) out.personalSteps = page.personalSteps.map((st) => ({ ...st, contacts: st.contacts.map((c) => ({ ...c })) }));
  if (page.alertIds !== undefined) out.alertIds = [...page.alertIds];
  return out;
}

function plan(before: PageRecord | null, page: PageRecord, audit: NewAuditEntry[], notifications: PageNotification[]): PagePlan {
  return { page, expectedVersion: before === null ? null : before.version, audit, notifications };
}

/** A triage decision with no open page for its key opens one at step 1 and notifies its targets. */
export function planOpen(input: OpenInput): PagePlan {
  const { nowMs, policy } = input;
  const first = policy.steps[0];
  if (first === undefined) throw new RangeError(`policy ${policy.id} has no steps`);
  const page: PageRecord = {
    id: input.pageId, agentId: input.agentId, incidentKey: input.incidentKey, state: 'triggered', exhausted: false,
    policy, policySha256: input.policySha256, step: 1, loop: 0, round: 0, openedAtMs: nowMs,
    acknowledgedAtMs: null, acknowledgedBy: null, resolvedAtMs: null, resolvedBy: null,
    nextEscalationAtMs: nowMs + first.afterMs, ackTimeoutAtMs: null, pendingJoins: 0, joinNoticeAtMs: null, lastJoinNoticeAtMs: null,
    eventIds: [input.event.id], title: input.event.title, severity: input.event.severity,
    ...(input.event.facts !== undefined && input.event.facts.length > 0 ? { facts: input.event.facts } : {}),
    ...(input.event.alerts === undefined ? {} : { alerts: input.event.alerts }), notified: [], version: 1,
    ...(input.event.alertIds !== undefined && input.event.alertIds.length > 0 ? { alertIds: rememberAlerts([], input.event.alertIds) } : {}),
  };
  const audit: NewAuditEntry[] = [entry(page, 'page.opened', engineActor(page.agentId),
    { incidentKey: page.incidentKey, policy: policy.id, policySha256: page.policySha256, eventId: input.event.id, ...alertnameOf(input.event) })];
  const notes = notifyRound(page, first.notify, 'escalation', { kind: 'opened' }, input.event.id, nowMs, input.resolve, audit);
  return plan(null, page, audit, notes);
}

/**
 * A resolved page whose key fires again inside the reopen window opens again: triggered at step 1,
 * its story (events, who was notified) kept, under the policy it first opened with.
 */
export function planReopen(before: PageRecord, event: PageEvent, nowMs: number, resolve: ResolveTargets): PagePlan {
  const page = copy(before);
  const first = stepOf({ ...page, step: 1 });
  Object.assign(page, { state: 'triggered', exhausted: false, step: 1, loop: 0, acknowledgedAtMs: null, acknowledgedBy: null,
    resolvedAtMs: null, resolvedBy: null, nextEscalationAtMs: nowMs + first.afterMs, ackTimeoutAtMs: null, pendingJoins: 0,
    joinNoticeAtMs: null, title: event.title, severity: event.severity, reopens: (before.reopens ?? 0) + 1, reopenedAtMs: nowMs });
  // The event that reopens the page is what the person is woken for now: its links, not the old ones.
  if (event.facts !== undefined && event.facts.length > 0) page.facts = event.facts;
  else delete page.facts;
  if (event.alerts !== undefined) page.alerts = event.alerts;
  else delete page.alerts;
  if (!page.eventIds.includes(event.id)) page.eventIds.push(event.id);
  if (event.alertIds !== undefined && event.alertIds.length > 0) page.alertIds = rememberAlerts(page.alertIds, newAlerts(page.alertIds, event.alertIds));
  const audit: NewAuditEntry[] = [entry(page, 'page.opened', engineActor(page.agentId), { incidentKey: page.incidentKey,
    policy: page.policy.id, policySha256: page.policySha256, eventId: event.id, reopened: true, ...alertnameOf(event) })];
  const notes = notifyRound(page, first.notify, 'escalation', { kind: 'reopened' }, event.id, nowMs, resolve, audit);
  return plan(before, page, audit, notes);
}

/**
 * Another event of an open page's incident joins it: no second page, and the page tells of it (joinNotice)
 * — at once when the last join notice is a minute old, else counted into the next notice (a timer at a
 * minute after the last). An event already on the page (a re-triage after a crash) changes nothing:
 * null. An event whose firing alerts the page has all heard of (§24.4: Alertmanager repeating a
 * still-firing group) is a repeat: `page.repeated`, nobody notified, nothing counted.
 */
export function planJoin(before: PageRecord, event: PageEvent, nowMs: number, resolve: ResolveTargets,
  route: StatusRoute = PLAIN_STATUS_ROUTE, out: JoinsOut = NO_JOINS_OUT): PagePlan | null {
  if (before.state === 'resolved') throw new RangeError(`page ${before.id} is resolved: reopen it instead`);
  if (before.eventIds.includes(event.id)) return null;
  const page = copy(before);
  const incoming = event.alertIds ?? [];
  const fresh = newAlerts(page.alertIds, incoming);
  if (incoming.length > 0 && fresh.length === 0) {
    return plan(before, page, [entry(page, 'page.repeated', engineActor(page.agentId), { eventId: event.id, alerts: incoming.length })], []);
  }
  page.eventIds.push(event.id);
  if (fresh.length > 0) page.alertIds = rememberAlerts(page.alertIds, fresh);
  const audit: NewAuditEntry[] = [entry(page, 'page.joined', engineActor(page.agentId), { eventId: event.id, alerts: alertCount(page),
    ...(fresh.length > 0 ? { newAlerts: fresh.length } : {}) })];
  const dueAtMs = joinNoticeDueAtMs(page, out, nowMs);
  if (nowMs < dueAtMs) {
    page.pendingJoins += 1;
    // A notice already waiting keeps its time: its timer looks at the wire again when it comes.
    page.joinNoticeAtMs ??= dueAtMs;
    return plan(before, page, audit, []);
  }
  return plan(before, page, audit, joinNotice(page, nowMs, resolve, route, audit));
}

/**
 * The join notice, decided by the page's state when it goes out, not when its joins came: a notice
 * counted before an ack and due after it is told as the ack's page is. Triggered: a round to the
 * current step's targets, so a merge is never silent (§17.3). Acknowledged: nothing may ring after the
 * ack commits (§21.7), so it is a status update (§21.1) to the holder — on their `statusUpdates`
 * contacts, else the quiet ones the page used — and to the rooms that carried the page (its channel
 * targets, §24.2: a Slack room hears it in the page's thread), reading like the join notice without
 * the ack action; nobody to tell quietly: nobody is told (the `page.joined` rows still say what
 * joined). The minute's gap holds either way, and an unack makes joins rounds again.
 */
function joinNotice(page: PageRecord, nowMs: number, resolve: ResolveTargets, route: StatusRoute, audit: NewAuditEntry[]): PageNotification[] {
  page.pendingJoins = 0;
  page.joinNoticeAtMs = null;
  page.lastJoinNoticeAtMs = nowMs;
  if (page.state === 'acknowledged') {
    return tellJoinAcked(page, nowMs, route, audit);
  }
  return notifyRound(page, stepOf(page).notify, 'join', { kind: 'joined' }, lastEvent(page), nowMs, resolve, audit, false);
}

/**
 * The page's due timer fired at `nowMs`: whichever of its timers are due act — a pending join notice,
 * an ack timeout (acknowledged → triggered, the current step notified again), the next step (or the
 * next loop, or exhaustion). A timer that is not due yet (a stale claim) plans nothing: null.
 */
export function planTimer(before: PageRecord, nowMs: number, resolve: ResolveTargets, route: StatusRoute | null = null,
  out: JoinsOut = NO_JOINS_OUT): PagePlan | null {
  if (before.state === 'resolved') return null;
  const page = copy(before);
  const audit: NewAuditEntry[] = [];
  const notes: PageNotification[] = [];
  let acted = false;
  // People's later rules that are due, each its own round (§21.1); only a triggered page has any.
  const due = page.state === 'triggered' ? (page.personalSteps ?? []).filter((st) => st.atMs <= nowMs) : [];
  if (due.length > 0) {
    setSteps(page, (page.personalSteps ?? []).filter((st) => st.atMs > nowMs));
    for (const st of due) notes.push(...fireStep(page, st, nowMs, resolve, audit));
    acted = true;
  }
  if (page.joinNoticeAtMs !== null && page.joinNoticeAtMs <= nowMs) {
    const dueAtMs = joinNoticeDueAtMs(page, out, nowMs);
    // The earlier notice went out late, or is not out yet: this one waits its minute from the wire.
    if (dueAtMs > nowMs) page.joinNoticeAtMs = dueAtMs;
    else notes.push(...joinNotice(page, nowMs, resolve, route ?? PLAIN_STATUS_ROUTE, audit));
    acted = true;
  }
  if (page.state === 'acknowledged' && page.ackTimeoutAtMs !== null && page.ackTimeoutAtMs <= nowMs) {
    audit.push(entry(page, 'page.unacknowledged', engineActor(page.agentId), { reason: 'ack-timeout', acknowledgedBy: page.acknowledgedBy }));
    Object.assign(page, { state: 'triggered', ackTimeoutAtMs: null, acknowledgedAtMs: null, acknowledgedBy: null });
    page.nextEscalationAtMs = nowMs + stepOf(page).afterMs;
    notes.push(...notifyRound(page, stepOf(page).notify, 'escalation', { kind: 'ack-timeout' }, lastEvent(page), nowMs, resolve, audit));
    acted = true;
  } else if (page.state === 'triggered' && page.nextEscalationAtMs !== null && page.nextEscalationAtMs <= nowMs) {
    notes.push(...advance(page, null, { actor: engineActor(page.agentId), by: 'timeout', via: 'source' }, nowMs, resolve, audit, route));
    acted = true;
  }
  return acted ? plan(before, page, audit, notes) : null;
}

/**
 * One step up (or to `toStep`): past the last step the page loops while loops remain, else it is
 * exhausted — it stays triggered and open, and `onExhausted` is told once. People notified before whom
 * the new step does not name hear whom it pages now, through `route` (§21.1 statusUpdates; null: nobody).
 */
function advance(page: PageRecord, toStep: number | null, actor: Actor, nowMs: number, resolve: ResolveTargets,
  audit: NewAuditEntry[], route: StatusRoute | null): PageNotification[] {
  const { steps, repeat } = page.policy;
  const reason = toStep === null ? 'timeout' : 'manual';
  const from = { step: page.step, loop: page.loop };
  if (toStep !== null) {
    page.step = toStep;
  } else if (page.step < steps.length) {
    page.step += 1;
  } else if (page.loop < repeat) {
    page.loop += 1;
    page.step = 1;
  } else {
    page.exhausted = true;
    page.nextEscalationAtMs = null;
    audit.push(entry(page, 'page.exhausted', engineActor(page.agentId), { step: page.step, loop: page.loop, policy: page.policy.id }));
    if (page.policy.onExhausted.length === 0) return [];
    return notifyRound(page, page.policy.onExhausted, 'escalation', { kind: 'exhausted' }, lastEvent(page), nowMs, resolve, audit);
  }
  page.exhausted = false;
  audit.push(entry(page, 'page.escalated', actor.actor, { from: from.step, to: page.step, fromLoop: from.loop, loop: page.loop, reason,
    ...(reason === 'manual' ? { by: actor.by } : {}) }));
  page.nextEscalationAtMs = nowMs + stepOf(page).afterMs;
  const earlier = page.notified.filter((n) => n.person !== CHANNEL_TARGET);
  const manual = reason === 'manual';
  const notes = notifyRound(page, stepOf(page).notify, 'escalation', { kind: 'escalated', manual }, lastEvent(page), nowMs, resolve, audit);
  if (route === null) return notes;
  // Past a person: notified before, not named by the step it climbed to (channel targets are nobody's).
  const named = new Set(resolve(stepOf(page).notify, nowMs).recipients.map((r) => r.person));
  const passed = earlier.filter((n) => !named.has(n.person));
  const to = [...new Set(namesBy(resolve)(stepOf(page).notify, nowMs))];
  return [...notes, ...tellEscalatedPast(page, passed, to, manual, nowMs, route, audit)];
}

export type ActionResult = { ok: true; plan: PagePlan | null } | { ok: false; reason: string };

/**
 * A shadow run's plan (contract §22.3): the same page, rounds and deliveryIds, each `page.notified`
 * row marked `shadow: true` — read as "would have been notified", never as a round that woke anyone
 * (reports leave them out). The page engine passes every plan of a shadow agent through it, whichever
 * planner made it, so a new kind of round is marked without a word here.
 */
export function asShadow(plan: PagePlan): PagePlan {
  return { ...plan, audit: plan.audit.map((a) => (a.kind === 'page.notified' ? { ...a, data: { ...a.data, shadow: true } } : a)) };
}

function refuseResolved(page: PageRecord): ActionResult | null {
  return page.state === 'resolved' ? { ok: false, reason: `page ${page.id} is already resolved` } : null;
}

/** triggered → acknowledged: every escalation and personal step stops; the ack timeout (if any) starts. Acking twice changes nothing. */
export function planAck(before: PageRecord, actor: Actor, note: string | null, nowMs: number, route: StatusRoute = PLAIN_STATUS_ROUTE): ActionResult {
  const refused = refuseResolved(before);
  if (refused) return refused;
  if (before.state === 'acknowledged') return { ok: true, plan: null };
  const page = copy(before);
  Object.assign(page, { state: 'acknowledged', acknowledgedAtMs: nowMs, acknowledgedBy: actor.by, nextEscalationAtMs: null,
    ackTimeoutAtMs: page.policy.ackTimeoutMs > 0 ? nowMs + page.policy.ackTimeoutMs : null });
  setSteps(page, []);
  const audit = [entry(page, 'page.acknowledged', actor.actor, { by: actor.by, via: actor.via, step: page.step, loop: page.loop,
    ...(note === null ? {} : { note }), ...(actor.device === undefined ? {} : { device: actor.device }) })];
  const notes = tellStatus(page, 'acknowledged', nowMs, lastEvent(page), route, audit);
  return { ok: true, plan: plan(before, page, audit, notes) };
}

/** acknowledged → triggered: escalation resumes from the current step, its `after` from now; `resolve` names who that pages. */
export function planUnack(before: PageRecord, actor: Actor, nowMs: number, resolve: ResolveTargets,
  route: StatusRoute = PLAIN_STATUS_ROUTE): ActionResult {
  const refused = refuseResolved(before);
  if (refused) return refused;
  if (before.state !== 'acknowledged') return { ok: false, reason: `page ${before.id} is not acknowledged` };
  const page = copy(before);
  Object.assign(page, { state: 'triggered', acknowledgedAtMs: null, acknowledgedBy: null, ackTimeoutAtMs: null,
    nextEscalationAtMs: page.exhausted ? null : nowMs + stepOf(page).afterMs });
  const audit = [entry(page, 'page.unacknowledged', actor.actor, { reason: 'manual', by: actor.by, acknowledgedBy: before.acknowledgedBy })];
  // An unack pages again (§24.1): its notice says who is paged now and next, like every round that pages.
  const notes = tellStatus(page, 'unacknowledged', nowMs, lastEvent(page), route, audit, pagedNowBy(page, namesBy(resolve), nowMs));
  return { ok: true, plan: plan(before, page, audit, notes) };
}

/** → resolved: every timer (personal steps too) stops and everyone who was notified hears of it, once. */
export function planResolve(before: PageRecord, actor: Actor, note: string | null, eventId: string | null, nowMs: number,
  route: StatusRoute = PLAIN_STATUS_ROUTE): ActionResult {
  const refused = refuseResolved(before);
  if (refused) return refused;
  const page = copy(before);
  if (eventId !== null && !page.eventIds.includes(eventId)) page.eventIds.push(eventId);
  Object.assign(page, { state: 'resolved', resolvedAtMs: nowMs, resolvedBy: actor.by, nextEscalationAtMs: null, ackTimeoutAtMs: null,
    joinNoticeAtMs: null, pendingJoins: 0 });
  setSteps(page, []);
  const audit = [entry(page, 'page.resolved', actor.actor, { by: actor.by, via: actor.via, ...(eventId === null ? {} : { eventId }),
    ...(note === null ? {} : { note }) })];
  const notes = tellStatus(page, 'resolved', nowMs, eventId ?? lastEvent(page), route, audit);
  return { ok: true, plan: plan(before, page, audit, notes) };
}

/** Manual escalation (`svc escalate PAGE [--to-step N]`): the next step, or step N; an acknowledged page is triggered again. */
export function planEscalate(before: PageRecord, toStep: number | null, actor: Actor, nowMs: number, resolve: ResolveTargets,
  route: StatusRoute | null = null): ActionResult {
  const refused = refuseResolved(before);
  if (refused) return refused;
  const steps = before.policy.steps.length;
  if (toStep !== null && (!Number.isInteger(toStep) || toStep < 1 || toStep > steps)) {
    return { ok: false, reason: `policy ${before.policy.id} has steps 1..${steps}; there is no step ${toStep}` };
  }
  const page = copy(before);
  if (page.state === 'acknowledged') {
    Object.assign(page, { state: 'triggered', acknowledgedAtMs: null, acknowledgedBy: null, ackTimeoutAtMs: null });
  }
  const audit: NewAuditEntry[] = [];
  const target = toStep ?? (page.step < steps ? page.step + 1 : page.loop < page.policy.repeat ? 1 : page.step);
  if (toStep === null && page.step === steps && page.loop < page.policy.repeat) page.loop += 1;
  const notes = advance(page, target, actor, nowMs, resolve, audit, route);
  return { ok: true, plan: plan(before, page, audit, notes) };
}

/**
 * A refused answer to a page (§17.10 `page.ack-refused`; any action, not only an ack): who tried
 * (`user`, as the channel knows them: a person, a Slack user, an OS user), through what (`via`), which
 * action, and why (`reason`, a short code). Its `pageId` puts it on the page's timeline and in the
 * stories of the page's events.
 */
export function ackRefusedEntry(agentId: string | null, pageId: string, action: string, actor: Actor, reason: string): NewAuditEntry {
  return { kind: 'page.ack-refused', actor: actor.actor, agentId, data: { pageId, via: actor.via, user: actor.by, action, reason } };
}

/**
 * An alert's firing that a resolve of its incident key overtook (§17.3: triage runs side by side): the
 * resolve, received after it, wins; the firing opens, reopens and joins nothing. Its row names the
 * event (its story tells why nobody was paged) and the resolve's event.
 */
export function supersededEntry(agentId: string, eventId: string, incidentKey: string, resolvedBy: string): NewAuditEntry {
  return { kind: 'event.superseded', actor: engineActor(agentId), agentId, data: { eventId, incidentKey, resolvedBy } };
}

/** A route with `notify:` sends once and opens no page (§17.3): one notification per recipient, people's first rule only (§21.1). */
export function planNotifyOnce(agentId: string, event: PageEvent & { status: 'firing' | 'resolved'; text: string }, targets: readonly Target[],
  nowMs: number, resolve: ResolveTargets): { audit: NewAuditEntry[]; notifications: PageNotification[] } {
  const resolved = resolve(targets, nowMs);
  const audit: NewAuditEntry[] = resolved.nobodyOnCall.map((nobody) => ({ kind: 'page.nobody-on-call', actor: engineActor(agentId), agentId,
    data: { eventId: event.id, ...nobodyData(nobody) } }));
  const notifications = firstRuleOnly(resolved.recipients, resolved.rules ?? ((): undefined => undefined)).map((r): PageNotification => ({ deliveryId: `${event.id}.notify.${r.person}.${r.channel}`,
    pageId: null, agentId, kind: 'notify', eventId: event.id, channelId: r.channel, person: r.person, to: r.to, severity: event.severity,
    status: event.status, title: event.title, text: event.text }));
  return { audit, notifications };
}
