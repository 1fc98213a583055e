/**
 * The page planner on fake time, for the planner's unit tests: a page opened under a policy, plans
 * applied as a store would (only to the version they were planned from, through JSON), and timers
 * fired whenever the clock passes the page's due time.
 */
import assert from 'node:assert/strict';
import { fakeClock } from '../../src/core/clock.js';
import type { NotifyRule, Policy, Target } from '../../src/oncall/oncall-config.js';
import type { PagePlan, PageRecord } from '../../src/oncall/page.js';
import { dueAtMs } from '../../src/oncall/page.js';
import type { Actor, PageEvent, ResolveTargets } from '../../src/oncall/page-plan.js';
import { planOpen, planTimer } from '../../src/oncall/page-plan.js';
import type { StatusRoute } from '../../src/oncall/status-updates.js';

export const MIN = 60_000;

export const policy = (over: Partial<Policy> = {}): Policy => ({
  id: 'default',
  steps: [
    { notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 5 * MIN },
    { notify: [{ kind: 'person', id: 'carol' }], afterMs: 10 * MIN },
  ],
  repeat: 0, ackTimeoutMs: 0, onExhausted: [{ kind: 'channel', id: 'team-room' }], ...over,
});

/** alice is on call for `primary`; people have one contact on `dm`; `empty` has nobody on call. */
export const resolve: ResolveTargets = (targets: readonly Target[]) => {
  const out: ReturnType<ResolveTargets> = { recipients: [], nobodyOnCall: [] };
  for (const t of targets) {
    if (t.kind === 'channel') out.recipients.push({ person: '-', channel: t.id, to: null });
    else if (t.kind === 'person') out.recipients.push({ person: t.id, channel: 'dm', to: t.id });
    else if (t.id === 'primary') out.recipients.push({ person: 'alice', channel: 'dm', to: 'alice' });
    else out.nobodyOnCall.push({ target: t, known: true });
  }
  return out;
};

/** alice: push first, an SMS after 2 minutes, a call after 5; carol: no rules (every contact at once); team-room: a channel target. */
export const RULES: Record<string, NotifyRule[]> = {
  alice: [{ afterMs: 0, via: ['push', 'slack'] }, { afterMs: 2 * MIN, via: ['sms'] }, { afterMs: 5 * MIN, via: ['phone'] }],
};
export const CONTACTS: Record<string, string[]> = { alice: ['push', 'slack', 'sms', 'phone'], carol: ['slack', 'mail'] };

export const people: ResolveTargets = (targets: readonly Target[]) => {
  const out: ReturnType<ResolveTargets> = { recipients: [], nobodyOnCall: [], rules: (p) => RULES[p] };
  for (const t of targets) {
    if (t.kind === 'channel') out.recipients.push({ person: '-', channel: t.id, to: null });
    else {
      const who = t.kind === 'schedule' ? 'alice' : t.id;
      for (const c of CONTACTS[who] ?? []) out.recipients.push({ person: who, channel: c, to: `${who}@${c}` });
    }
  }
  return out;
};

/** ntfy (`push`) and the call (`phone`) ring; PagerDuty-like `pd` follows the page's state. */
export const route = (listed: Record<string, string[]> = {}): StatusRoute => ({
  follows: (c) => c === 'pd',
  rings: (c) => c === 'push' || c === 'phone',
  listed: (p) => (listed[p] === undefined ? null : (listed[p] ?? []).map((c) => ({ channel: c, to: `${p}@${c}` }))),
});

/** A policy whose step 2 (carol) comes after 10 minutes: alice's rules run before it. */
export const slow = policy({ steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 10 * MIN },
  { notify: [{ kind: 'person', id: 'carol' }], afterMs: 10 * MIN }] });

export const cli: Actor = { actor: 'cli:ops', by: 'bob', via: 'cli' };
export const event = (id: string, alertIds?: string[]): PageEvent => ({ id, title: 'Disk full on db-1', severity: 'P1' as const,
  ...(alertIds === undefined ? {} : { alertIds }) });

/**
 * A page on fake time: plans are applied as a store would (only to the version they were planned
 * from), and `runTimers` fires the page's due timer whenever the clock passes it.
 */
export function harness(p: Policy = policy(), targets: ResolveTargets = resolve, first: PageEvent = event('e1')) {
  const clock = fakeClock(Date.UTC(2026, 10, 25, 3, 0, 0));
  const plans: PagePlan[] = [];
  let page: PageRecord | null = null;
  const apply = (plan: PagePlan | null): PagePlan | null => {
    if (plan === null) return null;
    assert.equal(plan.expectedVersion, page === null ? null : page.version, 'planned from the stored version');
    // What a store keeps is JSON: the page must survive the round trip unchanged.
    page = JSON.parse(JSON.stringify(plan.page)) as PageRecord;
    plans.push(plan);
    return plan;
  };
  apply(planOpen({ pageId: 'p0000test', agentId: 'ops', incidentKey: 'disk/db-1', policy: p, policySha256: 'sha-a', event: first,
    nowMs: clock.now(), resolve: targets }));
  const h = {
    clock, plans,
    get page(): PageRecord { return page as PageRecord; },
    apply,
    /** Moves time on by `ms`, firing the page's timer each time it falls due. */
    runTimers(ms: number): void {
      const end = clock.now() + ms;
      for (;;) {
        const due = dueAtMs(h.page);
        if (due === null || due > end) break;
        clock.set(Math.max(clock.now(), due));
        apply(planTimer(h.page, clock.now(), targets));
      }
      clock.set(end);
    },
    sent: (): string[] => plans.flatMap((x) => x.notifications.map((n) => n.deliveryId)),
    kinds: (): string[] => plans.flatMap((x) => x.audit.map((a) => a.kind)),
  };
  return h;
}
