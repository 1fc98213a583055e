/**
 * The page engine (contract §17.3–§17.4): the thin, impure shell around the page planner. It reads a
 * page, asks the planner what an action writes, and has the store persist the plan onto the version
 * it read — on a conflict (an ack and a timer raced, another replica moved first) it reads again and
 * plans again. It never sends: what a plan commits, the page notifier hands to channels.
 *
 * Entry points: a triage decision (open, join, reopen or resolve a page; or notify once), the timer
 * queue's due pages, the heartbeat watch, and the admin operations (ack, unack, resolve, escalate).
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import type { LogFields } from '../../core/log.js';
import type { OncallConfig, Override, Policy } from '../../oncall/oncall-config.js';
import type { PagePlan, PageRecord } from '../../oncall/page.js';
import { CHANNEL_TARGET, PAGE_ID_PATTERN, incarnationOf } from '../../oncall/page.js';
import type { JoinsOut } from '../../oncall/join-spacing.js';
import { NO_JOINS_OUT, joinsOutNeeded } from '../../oncall/join-spacing.js';
import type { ActionResult, Actor, PageEvent, ResolveTargets } from '../../oncall/page-plan.js';
import {
  ackRefusedEntry, asShadow, planAck, planEscalate, planJoin, planNotifyOnce, planOpen, planReopen, planResolve, planTimer, planUnack, supersededEntry,
} from '../../oncall/page-plan.js';
import { incidentKey } from '../../oncall/incident-key.js';
import { alertNameOf } from '../../oncall/label-name.js';
import { policySha256 } from '../../oncall/policy-hash.js';
import { resolveAllTargets, routeFor } from '../../oncall/targets.js';
import { isHeartbeatOnly } from '../../oncall/heartbeat-match.js';
import { alertIdentities } from '../../oncall/alert-identity.js';
import type { StatusRoute } from '../../oncall/status-updates.js';
import type { ApplyResult, Quarantined, StoredPage } from '../../store/oncall-store.js';
import { isDamagedPage } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import { factLines, messageFacts, pageAlertsOf } from '../providers/message-facts.js';
import type { TriageDecision } from '../providers/provider.js';
import { joinsOutOf } from './joins-out.js';
import type { PageNotifier } from './page-notifier.js';

/** Plans re-read and re-planned at most this often before the action gives up (another writer keeps winning). */
const MAX_CONFLICTS = 20;

export interface PageEngineMetrics {
  /** A page was acknowledged this many seconds after it opened (svc_page_ack_seconds). */
  acknowledged(agentId: string, seconds: number): void;
  /** A step was climbed (svc_page_escalations_total). */
  escalated(agentId: string, policy: string, reason: 'timeout' | 'manual'): void;
  /** A page ran out of steps and loops (svc_pages_exhausted_total). */
  exhausted(agentId: string): void;
}

export interface PageEngineDeps {
  store: Store;
  clock: Clock;
  /** Agents that have an oncall.yaml, by id. */
  configs: ReadonlyMap<string, OncallConfig>;
  metrics?: PageEngineMetrics;
  /** Whether an agent's channel follows its pages' state (acknowledged, unacknowledged) — PagerDuty (§18.4) and Slack (§18.1) do. */
  followsPageState?: (agentId: string, channelId: string) => boolean;
  /** Whether an agent's channel rings a phone (ntfy, Pushover, Twilio voice): no status updates there unless a person lists it (§21.1). */
  rings?: (agentId: string, channelId: string) => boolean;
  /** Whether the agent has the channel now: a stored policy may name one channels.yaml since dropped (reached nobody, audited). Default: yes. */
  hasChannel?: (agentId: string, channelId: string) => boolean;
  /** New notifications were committed: the notifier should look now. */
  onCommitted?: () => void;
  /** Whether the agent is a shadow run (contract §22.3): its page rounds are recorded as such (asShadow). */
  shadow?: (agentId: string) => boolean;
  /** A line for the agent's log (what the engine decided without writing anything; `warn` for a page that reached nobody). */
  log?: (agentId: string, event: string, fields: LogFields, level?: 'info' | 'warn') => void;
  /** A damaged page the engine found and set aside (logged and counted by the caller). */
  onQuarantined?: (q: Quarantined) => void;
  /**
   * The sender a freshly opened page's first round is claimed for, in the transaction that opens the
   * page, and handed to at once: no outbox claim (a round trip and a commit) between the page and its
   * first message. Without it, that round waits in the outbox like the others.
   */
  sender?: Pick<PageNotifier, 'claim' | 'handOff'>;
}

export interface TriagedEvent {
  id: string;
  agentId: string;
  sourceId: string;
  fingerprint: string | null;
  payload: unknown;
}

export type ActionOutcome = { ok: true; page: PageRecord; changed: boolean } | { ok: false; reason: string };

export interface PageEngine {
  /** What oncall.yaml makes of a triage decision; false when the agent has no oncall.yaml (the channels' own recipients are paged). */
  onDecision(event: TriagedEvent, decision: TriageDecision): Promise<boolean>;
  /** Whether the event is only a heartbeat's proof of life (§17.7): it opens no page and notifies nobody. */
  heartbeatOnly(event: Pick<TriagedEvent, 'agentId' | 'sourceId' | 'payload'>): boolean;
  /** A due page's timer fired (the timer loop claimed it). */
  fire(page: PageRecord): Promise<void>;
  /**
   * An operator's (or a channel button's, or a link's) action on a page; with `incarnation`, only on
   * that opening of the page (a link minted before the page resolved and reopened does not act on it).
   * A refusal is audited `page.ack-refused` (on the page's timeline), whoever asked.
   */
  act(pageId: string, action: PageAction, actor: Actor, opts?: { incarnation?: number }): Promise<ActionOutcome>;
  /** Audits a refusal a channel decided before acting (an unknown Slack user, a used or expired link): `page.ack-refused`, on the page's timeline. */
  refuse(agentId: string, pageId: string, action: PageAction['kind'], actor: Actor, reason: string): Promise<void>;
  /** Opens (or joins, or reopens) the page of an incident key under a policy: a missed heartbeat's. */
  openFor(agentId: string, incidentKey: string, policyId: string, event: PageEvent, extraAudit?: PagePlan['audit']): Promise<PageRecord | null>;
  /** Resolves the open page of an incident key; false when none is open. */
  resolveKey(agentId: string, key: string, actor: Actor, eventId: string | null): Promise<boolean>;
}

export type PageAction =
  | { kind: 'ack'; note: string | null }
  | { kind: 'unack' }
  | { kind: 'resolve'; note: string | null }
  | { kind: 'escalate'; toStep: number | null };

/** `p` + 12 base32 characters: short to type, no `.` (deliveryIds join on it). */
export function newPageId(): string {
  const id = `p${randomBytes(8).readBigUInt64BE().toString(32).padStart(13, '0').slice(0, 12)}`;
  if (!PAGE_ID_PATTERN.test(id)) throw new Error('page id out of pattern');
  return id;
}

export function createPageEngine(deps: PageEngineDeps): PageEngine {
  const { store, clock } = deps;
  // A loaded policy does not change (a reload brings new objects): hashed once, not on every page it opens.
  const policyHashes = new WeakMap<Policy, string>();
  const policyHash = (policy: Policy): string => {
    let sha = policyHashes.get(policy);
    if (sha === undefined) {
      sha = policySha256(policy);
      policyHashes.set(policy, sha);
    }
    return sha;
  };

  const resolverFor = async (agentId: string): Promise<ResolveTargets> => {
    const config = deps.configs.get(agentId);
    const overrides: Override[] = await store.oncall.listOverrides(agentId, clock.now());
    const rules = (person: string): OncallConfig['people'][number]['notify'] | undefined => config?.people.find((p) => p.id === person)?.notify;
    return (targets, atMs) => {
      if (config === undefined) return { recipients: [], nobodyOnCall: [] };
      const r = resolveAllTargets(config, targets, atMs, overrides, (channelId) => deps.hasChannel?.(agentId, channelId) ?? true);
      return { nobodyOnCall: r.nobodyOnCall, rules,
        recipients: r.recipients.map((x) => ({ person: x.personId ?? CHANNEL_TARGET, channel: x.channelId, to: x.address })) };
    };
  };

  /** How a state change of the agent's pages reaches the people notified (oncall/status-updates.ts). */
  const statusRoute = (agentId: string): StatusRoute => ({
    follows: (channelId) => deps.followsPageState?.(agentId, channelId) ?? false,
    rings: (channelId) => deps.rings?.(agentId, channelId) ?? false,
    listed: (person) => {
      const p = deps.configs.get(agentId)?.people.find((x) => x.id === person);
      if (p?.statusUpdates == null) return null;
      return p.statusUpdates.flatMap((channel) => (p.contacts[channel] === undefined ? [] : [{ channel, to: p.contacts[channel] ?? null }]));
    },
  });

  /** A target that reached nobody is audited and, so that someone looks, a warning in the agent's log (issue 33.4). */
  const warnNobody = (agentId: string, audit: PagePlan['audit']): void => {
    for (const a of audit) if (a.kind === 'page.nobody-on-call') deps.log?.(agentId, 'page.nobody-on-call', a.data as LogFields, 'warn');
  };

  const observe = (plan: PagePlan): void => {
    warnNobody(plan.page.agentId, plan.audit);
    const m = deps.metrics;
    if (m === undefined) return;
    for (const a of plan.audit) {
      if (a.kind === 'page.escalated') m.escalated(plan.page.agentId, plan.page.policy.id, a.data.reason === 'manual' ? 'manual' : 'timeout');
      else if (a.kind === 'page.exhausted') m.exhausted(plan.page.agentId);
      else if (a.kind === 'page.acknowledged') m.acknowledged(plan.page.agentId, Math.max(0, clock.now() - plan.page.openedAtMs) / 1000);
    }
  };

  /**
   * Applies a plan: committed, a conflict (plan again), or superseded by a resolve of its key.
   * `waitForSends`: the caller (the dispatcher) waits for an opening round's sends, so what it commits
   * next (the event's completion) shares a transaction with their message.delivered rows — one fsync
   * where there were two. Callers on the timer loop (a heartbeat's page) never wait for a channel: a
   * channel that never answers must not hold the timers.
   */
  const apply = async (planned: PagePlan, waitForSends: boolean): Promise<ApplyResult> => {
    const plan = deps.shadow?.(planned.page.agentId) === true ? asShadow(planned) : planned;
    // Only an opening round goes straight to the sender: nothing of the page was sent before it, so
    // it cannot overtake an earlier message of the page still in the outbox.
    const sender = plan.expectedVersion === null ? deps.sender : undefined;
    const r = await store.oncall.applyPagePlan(plan, clock.now(), sender?.claim);
    if (!r.ok) return r;
    observe(plan);
    const claimed = r.claimed ?? [];
    if (claimed.length > 0 && sender !== undefined) {
      const sent = sender.handOff(claimed);
      if (waitForSends) await sent;
    }
    if (plan.notifications.length > claimed.length) deps.onCommitted?.();
    return r;
  };

  /**
   * A page read for planning: a damaged one is set aside (its key freed) and reads as none — a
   * resolved one, or one just set aside, is no page to plan on; the next alert opens a new page.
   */
  const readable = async (page: StoredPage | null): Promise<PageRecord | null> => {
    if (page === null || !isDamagedPage(page)) return page;
    const q = await store.oncall.quarantinePage(page.id, clock.now());
    if (q !== null) {
      deps.log?.(page.agentId, 'page.quarantined', { pageId: page.id, reason: q.reason });
      deps.onQuarantined?.(q);
    }
    return null;
  };

  /**
   * Reads, plans and applies until the plan lands or there is nothing to do: the page as it is then,
   * and, when a resolve of its key superseded the plan's firing event, that resolve's event. A plan
   * that may send a join notice (a join, a timer) is given the page's earlier ones as the wire saw
   * them, read from its trail only when one may be due (joinsOutNeeded: not on every join of a storm).
   */
  const retrying = async (read: () => Promise<StoredPage | null>,
    planFor: (page: PageRecord | null, resolve: ResolveTargets, nowMs: number, out: JoinsOut) => PagePlan | null,
    agentId: string, waitForSends = false, joins = false): Promise<{ page: PageRecord | null; resolvedBy?: string }> => {
    for (let i = 0; i < MAX_CONFLICTS; i += 1) {
      // Both reads at once: they are on the path from an alert to its page's first message.
      const [stored, resolve] = await Promise.all([read(), resolverFor(agentId)]);
      const page = await readable(stored);
      const nowMs = clock.now();
      const out = joins && page !== null && joinsOutNeeded(page, nowMs) ? joinsOutOf(await store.oncall.pageTimeline(page.id)) : NO_JOINS_OUT;
      const plan = planFor(page, resolve, nowMs, out);
      if (plan === null) return { page };
      const r = await apply(plan, waitForSends);
      if (r.ok) return { page: plan.page };
      if (r.reason === 'superseded') return { page, resolvedBy: r.resolvedBy };
    }
    throw new Error(`page of ${agentId} kept changing under ${MAX_CONFLICTS} plans; giving up this action`);
  };

  /**
   * Opens, reopens or joins the page of a key. With `firingEventId` (an alert's firing) the store
   * refuses the plan when a resolve of the key was received after that event: `resolvedBy` says which.
   */
  const openOrJoin = async (agentId: string, key: string, policyId: string, event: PageEvent, extraAudit: PagePlan['audit'],
    waitForSends: boolean, firingEventId?: string): Promise<{ page: PageRecord | null; resolvedBy?: string }> => {
    const config = deps.configs.get(agentId);
    const policy = config?.policies.find((p) => p.id === policyId);
    if (config === undefined || policy === undefined) return { page: null };
    const reopenWindowMs = config.incidents.reopenWindowMs;
    const guarded = (plan: PagePlan | null): PagePlan | null => (plan === null || firingEventId === undefined ? plan : { ...plan, firingEventId });
    return retrying(() => store.oncall.findPage(agentId, key), (page, resolve, nowMs, out) => {
      if (page !== null && page.state !== 'resolved') return guarded(planJoin(page, event, nowMs, resolve, statusRoute(agentId), out));
      if (page !== null && page.resolvedAtMs !== null && nowMs - page.resolvedAtMs <= reopenWindowMs) {
        if (page.eventIds.includes(event.id)) return null;
        const plan = planReopen(page, event, nowMs, resolve);
        return guarded({ ...plan, audit: [...extraAudit, ...plan.audit] });
      }
      const plan = planOpen({ pageId: newPageId(), agentId, incidentKey: key, policy, policySha256: policyHash(policy), event, nowMs, resolve });
      return guarded({ ...plan, audit: [...extraAudit, ...plan.audit] });
    }, agentId, waitForSends, true);
  };
  // From the timer loop (a missed heartbeat): the first round is handed to its channels, not waited for.
  const openFor: PageEngine['openFor'] = async (agentId, key, policyId, event, extraAudit = []) =>
    (await openOrJoin(agentId, key, policyId, event, extraAudit, false)).page;

  const resolveKey: PageEngine['resolveKey'] = async (agentId, key, actor, eventId) => {
    let resolved = false;
    await retrying(() => store.oncall.findPage(agentId, key), (page) => {
      if (page === null || page.state === 'resolved') return null;
      const r = planResolve(page, actor, null, eventId, clock.now(), statusRoute(agentId));
      resolved = r.ok && r.plan !== null;
      return r.ok ? r.plan : null;
    }, agentId);
    return resolved;
  };

  const refuse = async (agentId: string | null, pageId: string, action: PageAction['kind'], actor: Actor, reason: string): Promise<void> => {
    await store.appendAudit(ackRefusedEntry(agentId, pageId, action, actor, reason), clock.now());
  };

  const heartbeatOnly = (event: Pick<TriagedEvent, 'agentId' | 'sourceId' | 'payload'>): boolean => {
    const config = deps.configs.get(event.agentId);
    return config !== undefined && isHeartbeatOnly(config.heartbeats, event.sourceId, event.payload);
  };

  return {
    openFor,
    resolveKey,

    heartbeatOnly,

    async onDecision(event, decision) {
      const config = deps.configs.get(event.agentId);
      if (config === undefined) return false;
      if (!decision.notify) return true;
      if (heartbeatOnly(event)) {
        deps.log?.(event.agentId, 'page.heartbeat-only', { eventId: event.id, sourceId: event.sourceId, status: decision.status });
        return true;
      }
      const key = incidentKey(config.incidents.key, event.payload, event.fingerprint ?? event.id);
      if (decision.status === 'resolved') {
        // Remembered before the page is looked for: a firing of the key still in triage (events are
        // triaged side by side) either opened its page first — found and resolved here — or, however
        // late it ends, finds this resolve and opens nothing (§17.3).
        await store.oncall.noteResolve(event.agentId, key, event.id, clock.now());
        await resolveKey(event.agentId, key, { actor: `agent:${event.agentId}`, by: 'source', via: 'source' }, event.id);
        return true;
      }
      // A silenced event never gets here: the store kept it `suppressed` as it arrived (§17.8).
      const route = routeFor(config, decision.severity, event.payload);
      if (route === null) return true;
      // The page's messages carry the event's own links whoever triaged it (issue 26.6).
      const facts = messageFacts(event.payload);
      const alertname = alertNameOf(event.payload);
      const alertIds = alertIdentities(event.payload);
      const pageEvent: PageEvent = { id: event.id, title: decision.title, severity: decision.severity,
        ...(facts === null ? {} : { facts: factLines(facts), alerts: pageAlertsOf(facts) }), ...(alertname === null ? {} : { alertname }),
        ...(alertIds.length === 0 ? {} : { alertIds }) };
      if ('notify' in route) {
        const once = planNotifyOnce(event.agentId, { ...pageEvent, status: decision.status, text: decision.text }, route.notify, clock.now(),
          await resolverFor(event.agentId));
        await store.oncall.writeNotifications(once.notifications, once.audit, clock.now());
        warnNobody(event.agentId, once.audit);
        if (once.notifications.length > 0) deps.onCommitted?.();
        return true;
      }
      const landed = await openOrJoin(event.agentId, key, route.policy, pageEvent, [], true, event.id);
      if (landed.resolvedBy !== undefined) {
        deps.log?.(event.agentId, 'page.firing-superseded', { eventId: event.id, incidentKey: key, resolvedBy: landed.resolvedBy });
        await store.appendAudit(supersededEntry(event.agentId, event.id, key, landed.resolvedBy), clock.now());
      }
      return true;
    },

    async fire(claimed) {
      await retrying(async () => (await store.oncall.getPage(claimed.id)),
        (page, resolve, nowMs, out) => (page === null ? null : planTimer(page, nowMs, resolve, statusRoute(page.agentId), out)), claimed.agentId, false, true);
    },

    refuse,

    async act(pageId, action, actor, opts = {}) {
      if (!PAGE_ID_PATTERN.test(pageId)) return { ok: false, reason: `no page ${pageId}` };
      const refused = async (page: { agentId: string } | null, code: string, reason: string): Promise<ActionOutcome> => {
        await refuse(page?.agentId ?? null, pageId, action.kind, actor, code);
        return { ok: false, reason };
      };
      for (let i = 0; i < MAX_CONFLICTS; i += 1) {
        const stored = await store.oncall.getPage(pageId);
        if (stored !== null && isDamagedPage(stored)) {
          await readable(stored);
          return refused(stored, 'damaged', `page ${pageId} is stored damaged (${stored.reason}); it was set aside`);
        }
        const page = stored;
        if (page === null) return refused(null, 'unknown-page', `no page ${pageId}`);
        if (opts.incarnation !== undefined && incarnationOf(page) !== opts.incarnation) {
          return refused(page, 'reopened', `page ${pageId} was resolved and reopened since`);
        }
        const nowMs = clock.now();
        let result: ActionResult;
        const route = statusRoute(page.agentId);
        if (action.kind === 'ack') result = planAck(page, actor, action.note, nowMs, route);
        else if (action.kind === 'unack') result = planUnack(page, actor, nowMs, await resolverFor(page.agentId), route);
        else if (action.kind === 'resolve') result = planResolve(page, actor, action.note, null, nowMs, route);
        else result = planEscalate(page, action.toStep, actor, nowMs, await resolverFor(page.agentId), route);
        if (!result.ok) return refused(page, refusalCode(page, action), result.reason);
        if (result.plan === null) return { ok: true, page, changed: false };
        if ((await apply(result.plan, false)).ok) return { ok: true, page: result.plan.page, changed: true };
      }
      return refused(await store.oncall.getPage(pageId), 'busy', `page ${pageId} kept changing; try again`);
    },
  };
}

/** Why the planner refused an action on a page, as a `page.ack-refused` row's `reason`. */
function refusalCode(page: PageRecord, action: PageAction): string {
  if (page.state === 'resolved') return 'resolved';
  if (action.kind === 'unack') return 'not-acknowledged';
  return action.kind === 'escalate' ? 'no-such-step' : 'refused';
}
