/**
 * The on-call configuration of one agent (contract §17, `oncall.yaml`), as the rest of svc sees it once
 * loaded and validated. Durations are milliseconds; times of day are minutes after local midnight.
 * This file is the seam between the pure on-call domain (schedules, routes, incident keys, silences:
 * src/oncall/) and the page engine that persists and runs pages (store, runtime): both import these
 * types, neither redefines them.
 */

export type Severity = 'P1' | 'P2' | 'P3';
export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

/** `person:<id>`, `schedule:<id>` or `channel:<id>` (§17.2). */
export type Target =
  | { kind: 'person'; id: string }
  | { kind: 'schedule'; id: string }
  | { kind: 'channel'; id: string };

/** One of a person's notification rules (§21.1): these contacts (channel ids of `contacts`) `afterMs` after a round names them. */
export interface NotifyRule {
  /** 0 (in the round itself) or 1 s .. 1 h. */
  afterMs: number;
  via: readonly string[];
}

export interface Person {
  id: string;
  name: string | null;
  /** channel id → this person's address on that channel (§17). */
  contacts: Readonly<Record<string, string>>;
  /** IANA zone the person lives in (§21, §24.5); null: the first schedule's (personZone). */
  timeZone: string | null;
  /** Personal rules in order of `afterMs` (§21.1); empty: every contact at once. */
  notify: readonly NotifyRule[];
  /** Contacts that hear of a page's later state changes (§21.1); null: the contacts the page used. */
  statusUpdates: readonly string[] | null;
  /** The identity the team console maps to this person (§24.6): an email or an OpenID `sub`; null: none. */
  login: string | null;
}

export interface TimeWindow {
  days: readonly Weekday[];
  /** Minutes after local midnight, 0..1439. */
  fromMinute: number;
  /** Minutes after local midnight, 1..1440; a window with `to <= from` runs past midnight. */
  toMinute: number;
}

export interface Rotation {
  people: readonly string[];
  /** IANA zone of `handoff` and `only` (§24.5): the rotation's own, else its schedule's. */
  timeZone: string;
  /** Shift length, 1 h .. 4 w. */
  everyMs: number;
  /** Local date-time (`YYYY-MM-DDTHH:mm`) when people[0] starts a shift, in the rotation's zone. */
  handoff: string;
  /** Local windows the rotation covers; empty = always. */
  only: readonly TimeWindow[];
}

export interface Schedule {
  id: string;
  /** IANA zone: the default of its rotations, and how the schedule is shown. */
  timeZone: string;
  rotations: readonly Rotation[];
  fallback: string | null;
  allowGaps: boolean;
}

export interface PolicyStep {
  notify: readonly Target[];
  /** Without an ack for this long → the next step; 1 s .. 24 h. */
  afterMs: number;
}

export interface Policy {
  id: string;
  steps: readonly PolicyStep[];
  /** Loops over all steps after the first pass, 0..9. */
  repeat: number;
  /** Acknowledged but not resolved this long → triggered again; 0 = off. */
  ackTimeoutMs: number;
  onExhausted: readonly Target[];
}

/**
 * What a route takes (§17, §24.3): the triage severity, and optionally alert labels — exact values or
 * `=~` RE2 patterns (label-pattern.ts), all of which one alert of the delivery must match.
 */
export interface RouteMatch {
  severity: readonly Severity[];
  /** Empty: any labels. */
  labels: readonly LabelMatcher[];
}

export type Route =
  | { match: RouteMatch; policy: string }
  | { match: RouteMatch; notify: readonly Target[] };

export type IncidentKeyRule =
  | { kind: 'groupKey' }
  | { kind: 'fingerprint' }
  /** `{{labels.alertname}}/{{labels.cluster}}`-style template. */
  | { kind: 'template'; template: string };

export interface Heartbeat {
  id: string;
  source: string;
  /** Exact label values; any alert of a delivery matching all of them refreshes the heartbeat. */
  match: Readonly<Record<string, string>>;
  everyMs: number;
  graceMs: number;
  policy: string;
}

export interface OncallConfig {
  people: readonly Person[];
  schedules: readonly Schedule[];
  policies: readonly Policy[];
  routes: readonly Route[];
  incidents: { key: IncidentKeyRule; reopenWindowMs: number };
  heartbeats: readonly Heartbeat[];
}

/** A schedule override, stored in the store (not the file) and made with `svc oncall override add`. */
export interface Override {
  id: string;
  agentId: string;
  scheduleId: string;
  personId: string;
  fromMs: number;
  toMs: number;
}

/** Who is on call for a schedule at an instant, and why (§17.6). */
export interface OnCallAnswer {
  person: string | null;
  source: 'override' | 'rotation' | 'fallback' | null;
  /** When this answer stops holding (the next handoff, override edge or window edge); null = never. */
  untilMs: number | null;
}

/** One matcher on an alert label: of a silence (§17.8) or a route (§24.3). */
export interface LabelMatcher {
  label: string;
  /** `=` exact value, `=~` an anchored RE2 pattern (label-pattern.ts). */
  op: '=' | '=~';
  value: string;
}

/** A silence's matcher (§17.8), stored in the store. */
export type SilenceMatcher = LabelMatcher;

export interface Silence {
  id: string;
  agentId: string | null;
  matchers: readonly SilenceMatcher[];
  startsAtMs: number;
  endsAtMs: number;
  reason: string;
  createdBy: string;
}
