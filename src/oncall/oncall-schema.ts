/**
 * The schema of `oncall.yaml` (contract §17). Strict: unknown keys are refused. Durations are written
 * for people (`5m`, `1w`, core/duration.ts) and come out in milliseconds; targets (`person:alice`)
 * and times of day (`09:00`) come out parsed, so the value is the OncallConfig the rest of svc uses.
 * What needs more than one key to judge (references between ids, channels of the agent, time zones,
 * coverage) is load-oncall.ts's.
 */
import { z } from 'zod';
import { ID_PATTERN } from '../config/schema.js';
import { formatDuration, parseDuration } from '../core/duration.js';
import type { IncidentKeyRule, LabelMatcher, NotifyRule, Person, Route, RouteMatch, Target, TimeWindow, Weekday } from './oncall-config.js';
import { LABEL_NAME } from './label-name.js';
import { MAX_PATTERN_CHARS, compileLabelPattern } from './label-pattern.js';
import { parseKeyTemplate } from './incident-key.js';

const id = z.string().regex(ID_PATTERN, 'must match ^[a-z0-9][a-z0-9._-]{0,63}$');

/** The bounds of every duration of the file (contract §17 where it says; the rest chosen, docs/oncall.md). */
export const DURATION_BOUNDS = {
  every: { min: 3_600_000, max: 4 * 604_800_000 },
  after: { min: 1_000, max: 86_400_000 },
  ackTimeout: { min: 60_000, max: 7 * 86_400_000 },
  reopenWindow: { min: 0, max: 7 * 86_400_000 },
  heartbeatEvery: { min: 10_000, max: 86_400_000 },
  heartbeatGrace: { min: 0, max: 86_400_000 },
  /** A personal rule's `after` (§21.1): 0m (in the round itself) or 1 s .. 1 h. */
  ruleAfter: { min: 1_000, max: 3_600_000 },
} as const;

/**
 * A duration in [min, max]; zero (`0`, or written as `0m`) is accepted only when `zero` says what it
 * means there (`off` for an ack timeout, `at once` for a personal rule).
 */
function duration(bounds: { min: number; max: number }, zero?: 'off' | 'at once') {
  const zeroNote = zero === undefined ? '' : `, or 0 for ${zero}`;
  const range = `${bounds.min === 0 ? '0' : formatDuration(bounds.min)}..${formatDuration(bounds.max)}`;
  return z.union([z.string(), z.number()]).transform((raw, ctx) => {
    if ((raw === 0 || raw === '0') && (zero !== undefined || bounds.min === 0)) return 0;
    const ms = typeof raw === 'string' ? parseDuration(raw) : null;
    if (ms === 0 && zero !== undefined) return 0;
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `expected a duration such as 30s, 5m, 2h, 1d or 1w (${range}${zeroNote})` });
      return z.NEVER;
    }
    if (ms < bounds.min || ms > bounds.max) {
      ctx.addIssue({ code: 'custom', message: `must be between ${range}${zero === undefined ? '' : ` (or 0 for ${zero})`}` });
      return z.NEVER;
    }
    return ms;
  });
}

const TARGET = /^(person|schedule|channel):(.*)$/;
const target = z.string().transform((raw, ctx): Target => {
  const m = TARGET.exec(raw);
  if (m === null || !ID_PATTERN.test(m[2] as string)) {
    ctx.addIssue({ code: 'custom', message: 'expected person:<id>, schedule:<id> or channel:<id>' });
    return z.NEVER;
  }
  return { kind: m[1] as Target['kind'], id: m[2] as string };
});

const WEEKDAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const satisfies readonly Weekday[];

/** `HH:MM`, 00:00..24:00 (24:00 only as an end). */
function timeOfDay(end: boolean) {
  return z.string().transform((raw, ctx) => {
    const m = /^(\d{2}):(\d{2})$/.exec(raw);
    const minute = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
    if (!m || Number(m[2]) > 59 || minute > (end ? 1440 : 1439)) {
      ctx.addIssue({ code: 'custom', message: `expected a local time "HH:MM" from 00:00 to ${end ? '24:00' : '23:59'}` });
      return z.NEVER;
    }
    return minute;
  });
}

const windowSchema = z.strictObject({
  days: z.array(z.enum(WEEKDAY_NAMES)).min(1).default([...WEEKDAY_NAMES]),
  from: timeOfDay(false),
  to: timeOfDay(true),
}).superRefine((w, ctx) => {
  if (w.from === w.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'equals from: a window needs a length (leave out `only` for all day)' });
}).transform((w): TimeWindow => ({ days: [...new Set(w.days)], fromMinute: w.from, toMinute: w.to }));

/** An IANA zone name; whether the zone exists is load-oncall.ts's to say (with the file's position). */
const zoneName = z.string().min(1).max(64);

const rotationSchema = z.strictObject({
  people: z.array(id).min(1),
  every: duration(DURATION_BOUNDS.every),
  handoff: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, 'expected a local date-time YYYY-MM-DDTHH:mm (no zone: the rotation\'s or schedule\'s timeZone applies)'),
  only: z.array(windowSchema).default([]),
  /** The rotation's own zone (§24.5); default: its schedule's. */
  timeZone: zoneName.optional(),
});

const scheduleSchema = z.strictObject({
  id,
  timeZone: zoneName,
  rotations: z.array(rotationSchema).default([]),
  fallback: id.optional(),
  allowGaps: z.boolean().default(false),
}).transform((s) => ({ id: s.id, timeZone: s.timeZone,
  rotations: s.rotations.map((r) => ({ people: r.people, everyMs: r.every, handoff: r.handoff, only: r.only, timeZone: r.timeZone ?? s.timeZone })),
  fallback: s.fallback ?? null, allowGaps: s.allowGaps }));

/** Text that ends up in messages, calendars and channel requests: one line, no control characters. */
const printable = (max: number) => z.string().min(1).max(max).regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, 'must be one line without control characters');

/** A personal rule (§21.1); which contacts exist, and the rules' order, are load-oncall.ts's to check. */
const notifyRuleSchema = z.strictObject({
  after: duration(DURATION_BOUNDS.ruleAfter, 'at once'),
  via: z.array(id).min(1).max(16),
}).transform((r): NotifyRule => ({ afterMs: r.after, via: [...new Set(r.via)] }));

const personSchema = z.strictObject({
  id,
  name: printable(128).optional(),
  contacts: z.record(id, printable(256)).refine((c) => Object.keys(c).length > 0, 'must name at least one channel'),
  timeZone: zoneName.optional(),
  notify: z.array(notifyRuleSchema).max(10).default([]),
  statusUpdates: z.array(id).max(16).optional(),
  /** An email or an OpenID `sub` (§24.6). */
  login: printable(256).optional(),
}).transform((p): Person => ({ id: p.id, name: p.name ?? null, contacts: p.contacts, timeZone: p.timeZone ?? null, notify: p.notify,
  statusUpdates: p.statusUpdates === undefined ? null : [...new Set(p.statusUpdates)], login: p.login ?? null }));

const stepSchema = z.strictObject({
  notify: z.array(target).min(1),
  after: duration(DURATION_BOUNDS.after),
}).transform((s) => ({ notify: s.notify, afterMs: s.after }));

const policySchema = z.strictObject({
  id,
  steps: z.array(stepSchema).min(1).max(20),
  repeat: z.number().int().min(0).max(9).default(0),
  ackTimeout: duration(DURATION_BOUNDS.ackTimeout, 'off').default(0),
  onExhausted: z.array(target).default([]),
}).transform((p) => ({ id: p.id, steps: p.steps, repeat: p.repeat, ackTimeoutMs: p.ackTimeout, onExhausted: p.onExhausted }));

const SEVERITIES = ['P1', 'P2', 'P3'] as const;

/**
 * A route's label matcher (§24.3): an exact value, or `=~` and an RE2 pattern that must compile
 * within label-pattern.ts's bounds — refused here, so `svc check` names the file, line and label.
 */
const labelValue = z.string().max(MAX_PATTERN_CHARS).transform((raw, ctx): Pick<LabelMatcher, 'op' | 'value'> => {
  if (!raw.startsWith('=~')) return { op: '=', value: raw };
  const compiled = compileLabelPattern(raw.slice(2));
  if (!compiled.ok) {
    ctx.addIssue({ code: 'custom', message: `the regular expression after =~ ${compiled.error}` });
    return z.NEVER;
  }
  return { op: '=~', value: raw.slice(2) };
});

const routeSchema = z.strictObject({
  match: z.strictObject({
    severity: z.array(z.enum(SEVERITIES)).min(1),
    labels: z.record(z.string(), labelValue).superRefine((m, ctx) => {
      if (Object.keys(m).length === 0) ctx.addIssue({ code: 'custom', message: 'must name at least one label (or leave out labels)' });
      for (const name of Object.keys(m)) {
        if (!LABEL_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is not a label name (letters, digits and _, not starting with a digit)' });
      }
    }).optional(),
  }),
  policy: id.optional(),
  notify: z.array(target).min(1).optional(),
}).superRefine((r, ctx) => {
  if ((r.policy === undefined) === (r.notify === undefined)) {
    ctx.addIssue({ code: 'custom', path: [], message: 'needs exactly one of policy (escalate) or notify (send once)' });
  }
}).transform((r): Route => {
  const match: RouteMatch = { severity: r.match.severity,
    labels: Object.entries(r.match.labels ?? {}).map(([label, m]) => ({ label, ...m })) };
  return r.policy !== undefined ? { match, policy: r.policy } : { match, notify: r.notify ?? [] };
});

const incidentKey = z.string().transform((raw, ctx): IncidentKeyRule => {
  if (raw === 'groupKey' || raw === 'fingerprint') return { kind: raw };
  const parsed = parseKeyTemplate(raw);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: `expected groupKey, fingerprint or a template such as "{{labels.alertname}}/{{labels.cluster}}": ${parsed.error}` });
    return z.NEVER;
  }
  return { kind: 'template', template: raw };
});

const heartbeatSchema = z.strictObject({
  id,
  source: id,
  match: z.record(z.string().regex(LABEL_NAME, 'must be a label name'), z.string().max(1024))
    .refine((m) => Object.keys(m).length > 0, 'must name at least one label'),
  every: duration(DURATION_BOUNDS.heartbeatEvery),
  grace: duration(DURATION_BOUNDS.heartbeatGrace).default(0),
  policy: id,
}).transform((h) => ({ id: h.id, source: h.source, match: h.match, everyMs: h.every, graceMs: h.grace, policy: h.policy }));

export const DEFAULT_REOPEN_WINDOW_MS = 10 * 60_000;

export const oncallFileSchema = z.strictObject({
  people: z.array(personSchema).min(1),
  schedules: z.array(scheduleSchema).default([]),
  policies: z.array(policySchema).default([]),
  routes: z.array(routeSchema).min(1),
  incidents: z.strictObject({
    key: incidentKey.default({ kind: 'groupKey' }),
    reopenWindow: duration(DURATION_BOUNDS.reopenWindow).default(DEFAULT_REOPEN_WINDOW_MS),
  }).default({ key: { kind: 'groupKey' }, reopenWindow: DEFAULT_REOPEN_WINDOW_MS }),
  heartbeats: z.array(heartbeatSchema).default([]),
  // silences live in the store (svc silence add, §17.8), never in the file.
}).transform((f) => ({
  people: f.people,
  schedules: f.schedules,
  policies: f.policies,
  routes: f.routes,
  incidents: { key: f.incidents.key, reopenWindowMs: f.incidents.reopenWindow },
  heartbeats: f.heartbeats,
}));
