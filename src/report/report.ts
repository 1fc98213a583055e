/**
 * A report (contract §23) as GET /report answers it, `svc report --json` prints it and the console
 * draws it: one shape, from one computation (aggregate-report.ts). Durations are seconds, hours are
 * hours; times are ISO-8601 UTC.
 */
import type { ReportBy } from './report-query.js';

/** A distribution, never only a mean (§23.1): nearest-rank percentiles (percentiles.ts); null when count is 0. */
export interface Distribution {
  count: number;
  p50: number | null;
  p90: number | null;
  max: number | null;
}

/** Page rounds to a person through a channel that wakes (interruptions.ts), by the person's local time. */
export interface Interruptions {
  business: number;
  offHours: number;
  sleep: number;
  total: number;
}

export interface ReportMetrics {
  /** Pages opened in the window (§23.2). */
  pages: number;
  /** Of them, acknowledged at least once, and resolved. */
  acknowledged: number;
  resolved: number;
  /** Opening → first acknowledgement, and opening → first resolve. */
  timeToAckSeconds: Distribution;
  timeToResolveSeconds: Distribution;
  /** page.escalated rows by reason: a step's timeout, or `svc escalate`. */
  escalations: { timeout: number; manual: number };
  /** Pages that ran through every step and loop without an ack. */
  exhausted: number;
  /** Pages resolved by their source within 5 minutes of opening, never acknowledged before it. */
  flapping: number;
  interruptions: Interruptions;
}

/** One group of `--by`: a person, a schedule or a policy of an agent, or an alert name (null: alerts without one). */
export interface ReportGroup extends ReportMetrics {
  key: string | null;
  /** The agent the person, schedule or policy belongs to; null for alert names (they span agents). */
  agentId: string | null;
  /** A person's hours on call; a schedule's hours with someone on call; null for policies and alerts. */
  hoursOnCall: number | null;
}

/** Who carried the pager: each person's interruptions and hours on call. */
export interface PersonLoad {
  agentId: string;
  person: string;
  name: string | null;
  /** The zone their interruptions are bucketed in (oncall/person-zone.ts). */
  timeZone: string;
  interruptions: Interruptions;
  hoursOnCall: number;
}

export interface NoisyAlert {
  alertname: string | null;
  pages: number;
  flapping: number;
}

export interface Report {
  since: string;
  until: string;
  agent: string | null;
  by: ReportBy | null;
  totals: ReportMetrics;
  /** With `by`: the groups, most pages first (at most MAX_GROUPS); empty without. */
  groups: ReportGroup[];
  /** Groups beyond MAX_GROUPS, left out of `groups`. */
  groupsLeftOut: number;
  people: PersonLoad[];
  /** The noisiest alert names, most pages first (at most NOISY_ALERTS). */
  alerts: NoisyAlert[];
}
