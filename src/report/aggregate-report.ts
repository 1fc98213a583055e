/**
 * The report (contract §23): one pure computation from what the store read (store/report-rows.ts) and
 * the loaded oncall.yaml and channels of each agent. GET /report, `svc report` and the console's
 * `/ui/reports` all show what this returns.
 *
 * Groups (`by`): a person's pages are those with a page round to them (any channel), and their
 * interruptions their own; a schedule's pages are those whose policy (as loaded) names it in a step,
 * and its interruptions those of its pages to whoever was on call in it at that moment; a policy's and
 * an alert name's pages are those opened under it, with all their interruptions.
 */
import { channelWakes } from '../config/channel-wakes.js';
import { isoTs } from '../core/clock.js';
import type { OncallConfig, Override } from '../oncall/oncall-config.js';
import { personZone } from '../oncall/person-zone.js';
import type { Coverage } from './hours-on-call.js';
import { coverage } from './hours-on-call.js';
import type { InterruptionBucket } from './interruptions.js';
import { addInterruption, noInterruptions, zoneBuckets } from './interruptions.js';
import type { PageFacts } from './page-facts.js';
import { distribution } from './percentiles.js';
import type { Interruptions, NoisyAlert, PersonLoad, Report, ReportGroup, ReportMetrics } from './report.js';
import type { ReportQuery } from './report-query.js';

/** Most groups a report lists (by alert name there may be one per page). */
export const MAX_GROUPS = 500;
/** The noisiest alert names listed. */
export const NOISY_ALERTS = 20;

/** An agent as a report sees it: its oncall.yaml, its channels' types (channels.yaml), its stored overrides. */
export interface ReportAgent {
  agentId: string;
  config: OncallConfig;
  /** Channel id → `type`. */
  channelTypes: ReadonlyMap<string, string>;
  overrides: readonly Override[];
}

/** An agent's rule for a round: the bucket of the interruption it is, null when its channel does not wake. */
type Waker = (channel: string, person: string, tsMs: number) => InterruptionBucket | null;

/**
 * What rounds came to as interruptions, kept between reports by whoever keeps the facts
 * (report-cache.ts): each agent's rule per loaded oncall.yaml and channel types, and each page's
 * interruptions under the rule and the number of rounds they were worked out for (rounds are only ever
 * appended). A reload brings new objects, so nothing worked out under the old files is used.
 */
export interface InterruptionMemo {
  rules: WeakMap<OncallConfig, WeakMap<ReadonlyMap<string, string>, Waker>>;
  pages: WeakMap<PageFacts, { wake: Waker; rounds: number; list: readonly Interruption[] }>;
}

export const interruptionMemo = (): InterruptionMemo => ({ rules: new WeakMap(), pages: new WeakMap() });

export interface ReportInput {
  query: ReportQuery;
  /** The window's pages with what their rows say (page-facts.ts), in any order. */
  facts: Iterable<PageFacts>;
  /** The agents with an oncall.yaml (those of `query.agent` only, when it is set). */
  agents: readonly ReportAgent[];
  /** Kept from earlier reports over the same facts; a fresh one when absent. */
  memo?: InterruptionMemo;
}

interface Interruption {
  person: string;
  bucket: InterruptionBucket;
  tsMs: number;
}

interface Tally {
  pages: number;
  ackMs: number[];
  resolveMs: number[];
  timeout: number;
  manual: number;
  exhausted: number;
  flapping: number;
  interruptions: Interruptions;
}

const tally = (): Tally => ({ pages: 0, ackMs: [], resolveMs: [], timeout: 0, manual: 0, exhausted: 0, flapping: 0, interruptions: noInterruptions() });

function addPage(t: Tally, f: PageFacts): void {
  t.pages += 1;
  if (f.ackMs !== null) t.ackMs.push(f.ackMs);
  if (f.resolveMs !== null) t.resolveMs.push(f.resolveMs);
  t.timeout += f.escalations.timeout;
  t.manual += f.escalations.manual;
  if (f.exhausted) t.exhausted += 1;
  if (f.flapping) t.flapping += 1;
}

function metrics(t: Tally): ReportMetrics {
  return { pages: t.pages, acknowledged: t.ackMs.length, resolved: t.resolveMs.length, timeToAckSeconds: distribution(t.ackMs),
    timeToResolveSeconds: distribution(t.resolveMs), escalations: { timeout: t.timeout, manual: t.manual }, exhausted: t.exhausted,
    flapping: t.flapping, interruptions: t.interruptions };
}

const hours = (h: number | undefined): number => Math.round((h ?? 0) * 100) / 100;

interface Group { key: string | null; agentId: string | null; hoursOnCall: number | null; tally: Tally }

/** Groups by a key within an agent (or none): created on first use, or seeded so a quiet one is listed too. */
function groupsOf(): { get(agentId: string | null, key: string | null, hoursOnCall?: number | null): Group; all(): Group[] } {
  const byAgent = new Map<string | null, Map<string | null, Group>>();
  const all: Group[] = [];
  return {
    get(agentId, key, hoursOnCall = null) {
      let groups = byAgent.get(agentId);
      if (groups === undefined) byAgent.set(agentId, groups = new Map<string | null, Group>());
      let g = groups.get(key);
      if (g === undefined) {
        groups.set(key, g = { key, agentId, hoursOnCall, tally: tally() });
        all.push(g);
      }
      return g;
    },
    all: () => [...all],
  };
}

/** An agent's rule: which channels wake and each person's zone are looked up once, not per round. */
function waker(agent: ReportAgent): Waker {
  const wakes = new Map<string, boolean>();
  const people = new Map<string, (tsMs: number) => InterruptionBucket>();
  const zones = new Map<string, (tsMs: number) => InterruptionBucket>();
  return (channel, person, tsMs) => {
    let w = wakes.get(channel);
    if (w === undefined) wakes.set(channel, w = channelWakes(agent.channelTypes.get(channel)));
    if (!w) return null;
    let bucket = people.get(person);
    if (bucket === undefined) {
      const zone = personZone(agent.config, person);
      bucket = zones.get(zone) ?? zoneBuckets(zone);
      zones.set(zone, bucket);
      people.set(person, bucket);
    }
    return bucket(tsMs);
  };
}

function ruleOf(memo: InterruptionMemo, agent: ReportAgent): Waker {
  let byTypes = memo.rules.get(agent.config);
  if (byTypes === undefined) memo.rules.set(agent.config, byTypes = new WeakMap());
  let wake = byTypes.get(agent.channelTypes);
  if (wake === undefined) byTypes.set(agent.channelTypes, wake = waker(agent));
  return wake;
}

const NONE: readonly Interruption[] = [];

function interruptionsOf(memo: InterruptionMemo, f: PageFacts, wake: Waker): readonly Interruption[] {
  const known = memo.pages.get(f);
  if (known !== undefined && known.wake === wake && known.rounds === f.rounds.length) return known.list;
  let list: Interruption[] | null = null;
  for (const r of f.rounds) {
    const bucket = wake(r.channel, r.person, r.tsMs);
    if (bucket !== null) (list ??= []).push({ person: r.person, tsMs: r.tsMs, bucket });
  }
  memo.pages.set(f, { wake, rounds: f.rounds.length, list: list ?? NONE });
  return list ?? NONE;
}

const byLoad = (a: { pages: number; interruptions: Interruptions; key: string | null; agentId: string | null },
  b: typeof a): number => b.pages - a.pages || b.interruptions.total - a.interruptions.total
  || (a.agentId ?? '').localeCompare(b.agentId ?? '') || (a.key ?? '\uffff').localeCompare(b.key ?? '\uffff');

export function aggregateReport(input: ReportInput): Report {
  const { query } = input;
  const agents = new Map(input.agents.map((a) => [a.agentId, a]));
  const facts = Array.isArray(input.facts) ? input.facts as readonly PageFacts[] : [...input.facts];
  const lastRoundMs = facts.reduce((max, f) => Math.max(max, f.lastTsMs), query.untilMs);
  const covers = new Map<string, Coverage>(input.agents.map((a) => [a.agentId,
    coverage(a.config, a.overrides, query.sinceMs, query.untilMs, lastRoundMs + 1)]));

  // Who was woken, when: a page round to a person on a channel whose type wakes.
  const memo = input.memo ?? interruptionMemo();
  const wakers = new Map(input.agents.map((a) => [a.agentId, ruleOf(memo, a)]));
  // Arrays side by side, not a map of pages: at 100,000 pages a report is a few passes over them.
  const woken: Array<readonly Interruption[]> = new Array<readonly Interruption[]>(facts.length);
  for (let i = 0; i < facts.length; i++) {
    const f = facts[i] as PageFacts;
    const wake = wakers.get(f.page.agentId);
    woken[i] = wake === undefined ? NONE : interruptionsOf(memo, f, wake);
  }

  const totals = tally();
  const people = groupsOf();
  for (const a of input.agents) for (const p of a.config.people) people.get(a.agentId, p.id);
  const alerts = new Map<string | null, NoisyAlert>();
  for (let n = 0; n < facts.length; n++) {
    const f = facts[n] as PageFacts;
    const list = woken[n] as readonly Interruption[];
    addPage(totals, f);
    for (const i of list) {
      addInterruption(totals.interruptions, i.bucket);
      addInterruption(people.get(f.page.agentId, i.person).tally.interruptions, i.bucket);
    }
    let alert = alerts.get(f.page.alertname);
    if (alert === undefined) alerts.set(f.page.alertname, alert = { alertname: f.page.alertname, pages: 0, flapping: 0 });
    alert.pages += 1;
    if (f.flapping) alert.flapping += 1;
  }

  const groups = query.by === null ? [] : groupBy(query.by, input.agents, covers, facts, woken);
  const listed = groups.slice(0, MAX_GROUPS);
  return {
    since: isoTs(query.sinceMs),
    until: isoTs(query.untilMs),
    agent: query.agent,
    by: query.by,
    totals: metrics(totals),
    groups: listed,
    groupsLeftOut: groups.length - listed.length,
    people: people.all().map((g): PersonLoad => {
      const agent = agents.get(g.agentId as string);
      const person = g.key as string;
      return { agentId: g.agentId as string, person, name: agent?.config.people.find((p) => p.id === person)?.name ?? null,
        timeZone: agent === undefined ? 'UTC' : personZone(agent.config, person), interruptions: g.tally.interruptions,
        hoursOnCall: hours(covers.get(g.agentId as string)?.personHours.get(person)) };
    }).sort((a, b) => b.interruptions.total - a.interruptions.total || b.interruptions.sleep - a.interruptions.sleep
      || b.hoursOnCall - a.hoursOnCall || a.agentId.localeCompare(b.agentId) || a.person.localeCompare(b.person)),
    alerts: [...alerts.values()].sort((a, b) => b.pages - a.pages || b.flapping - a.flapping
      || (a.alertname ?? '\uffff').localeCompare(b.alertname ?? '\uffff')).slice(0, NOISY_ALERTS),
  };
}

/** The groups of `by`, each with its pages' metrics; the busiest first. */
function groupBy(by: NonNullable<ReportQuery['by']>, agents: readonly ReportAgent[], covers: ReadonlyMap<string, Coverage>,
  facts: readonly PageFacts[], woken: ReadonlyArray<readonly Interruption[]>): ReportGroup[] {
  const groups = groupsOf();
  const configOf = new Map(agents.map((a) => [a.agentId, a.config]));
  // The schedules a policy names in its steps, once per agent and policy.
  const namedBy = new Map<string, ReadonlySet<string>>();
  const schedulesOf = (agentId: string, policyId: string): ReadonlySet<string> => {
    const id = `${agentId}\u0000${policyId}`;
    let named = namedBy.get(id);
    if (named === undefined) {
      const policy = configOf.get(agentId)?.policies.find((p) => p.id === policyId);
      namedBy.set(id, named = new Set(policy?.steps.flatMap((s) => s.notify.filter((t) => t.kind === 'schedule').map((t) => t.id)) ?? []));
    }
    return named;
  };
  for (const a of agents) {
    const cover = covers.get(a.agentId);
    if (by === 'person') for (const p of a.config.people) groups.get(a.agentId, p.id, hours(cover?.personHours.get(p.id)));
    if (by === 'schedule') for (const s of a.config.schedules) groups.get(a.agentId, s.id, hours(cover?.scheduleHours.get(s.id)));
    if (by === 'policy') for (const p of a.config.policies) groups.get(a.agentId, p.id);
  }
  for (let n = 0; n < facts.length; n++) {
    const f = facts[n] as PageFacts;
    const list = woken[n] as readonly Interruption[];
    const agentId = f.page.agentId;
    if (by === 'policy' || by === 'alert') {
      const g = by === 'policy' ? groups.get(agentId, f.page.policy) : groups.get(null, f.page.alertname);
      addPage(g.tally, f);
      for (const i of list) addInterruption(g.tally.interruptions, i.bucket);
    } else if (by === 'person') {
      for (const [n, { person }] of f.rounds.entries()) {
        if (f.rounds.findIndex((r) => r.person === person) !== n) continue; // a page counts once for a person
        const g = groups.get(agentId, person, hours(covers.get(agentId)?.personHours.get(person)));
        addPage(g.tally, f);
        for (const i of list) if (i.person === person) addInterruption(g.tally.interruptions, i.bucket);
      }
    } else {
      for (const scheduleId of schedulesOf(agentId, f.page.policy)) {
        const g = groups.get(agentId, scheduleId, hours(covers.get(agentId)?.scheduleHours.get(scheduleId)));
        addPage(g.tally, f);
        for (const i of list) if (covers.get(agentId)?.onCallAt(scheduleId, i.tsMs) === i.person) addInterruption(g.tally.interruptions, i.bucket);
      }
    }
  }
  return groups.all().map((g): ReportGroup => ({ key: g.key, agentId: g.agentId, ...metrics(g.tally), hoursOnCall: by === 'person' || by === 'schedule'
    ? g.hoursOnCall ?? 0 : null })).sort(byLoad);
}
