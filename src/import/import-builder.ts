/**
 * What the three vendor mappings share while they translate: the people, schedules, policies and
 * overrides found so far, the ids handed out, the report lines, and the finishing touches every
 * imported file needs — a route (svc needs one; the vendors route elsewhere), and `allowGaps: true` on
 * a schedule that, like the vendor's, leaves hours uncovered (svc refuses silent gaps, §17.1).
 */
import type { OncallConfig, Person, Policy, Route, Schedule } from '../oncall/oncall-config.js';
import { COVERAGE_DAYS } from '../oncall/load-oncall.js';
import { DAY_MS, isKnownZone } from '../oncall/zone-time.js';
import type { ContactKind, ImportObjectKind, ImportOutcome, ImportResult, ImportVendor, ImportedOverride, MapOptions, ReportLine } from './import-result.js';
import { coveredSpans, firstGap, firstOverlap } from './rotation-parts.js';
import { IdAllocator } from './slug-ids.js';

/** How far ahead rotations that are all on call at once (in the source, several people) are looked for. */
const OVERLAP_DAYS = 28;

/** Rotations the source puts on call together where they overlap: the same `group` (a level, or all of them), named for the report. */
export interface OverlapCheck {
  groups: readonly number[];
  names: readonly string[];
  /** The vendor, as the note names it. */
  label: string;
}

const SEVERITIES = ['P1', 'P2', 'P3'] as const;

/** Text fit for oncall.yaml's one-line fields (names, addresses): control characters out, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim().slice(0, max);
}

export class ImportBuilder {
  readonly lines: ReportLine[] = [];
  readonly people: Person[] = [];
  readonly schedules: Schedule[] = [];
  readonly policies: Policy[] = [];
  readonly overrides: ImportedOverride[] = [];
  readonly notices: string[] = [];
  readonly personIds = new IdAllocator();
  readonly scheduleIds = new IdAllocator();
  readonly policyIds = new IdAllocator();
  readonly personOfUser = new Map<string, string>();
  readonly scheduleOfVendor = new Map<string, string>();
  private readonly kindsUsed = new Set<ContactKind>();
  private readonly scheduleLines = new Map<string, { line: ReportLine; overlap: OverlapCheck | null }>();

  constructor(readonly vendor: ImportVendor, readonly options: MapOptions) {}

  line(kind: ImportObjectKind, source: string, target: string | null, outcome: ImportOutcome, note = ''): ReportLine {
    const line = { kind, source, target, outcome, note };
    this.lines.push(line);
    return line;
  }

  /** The outcome of several findings: the worst of them. */
  static worst(...outcomes: ImportOutcome[]): ImportOutcome {
    if (outcomes.includes('not-mapped')) return 'not-mapped';
    return outcomes.includes('approximated') ? 'approximated' : 'mapped';
  }

  /** The channel id that carries `kind`, remembered so the report lists the channels.yaml entries needed. */
  channel(kind: ContactKind): string {
    this.kindsUsed.add(kind);
    return this.options.channels[kind];
  }

  /** A time zone if svc knows it, else null (the report says so). Asked once per name: each answer builds an Intl formatter (≈0.5 ms). */
  static zone(name: string | null): string | null {
    if (name === null) return null;
    let known = ImportBuilder.zones.get(name);
    if (known === undefined) {
      known = isKnownZone(name);
      ImportBuilder.zones.set(name, known);
    }
    return known ? name : null;
  }

  private static readonly zones = new Map<string, boolean>();

  /**
   * A schedule of the source and its report line. `finish` adds to the line where it has gaps, and —
   * with `overlap` — where rotations of one group are on call at once (svc pages the first of them).
   */
  addSchedule(schedule: Schedule, vendorId: string, line: ReportLine, overlap: OverlapCheck | null = null): void {
    this.schedules.push(schedule);
    this.scheduleOfVendor.set(vendorId, schedule.id);
    this.scheduleLines.set(schedule.id, { line, overlap });
  }

  /**
   * A person of the source, with its report line: the login email becomes the email contact when the
   * source gave none (every person needs a contact, and the login is an address), and a time zone svc
   * does not know is left out. `notes` and `outcome` carry what the vendor mapping found.
   */
  addPerson(person: Person & { contacts: Record<string, string> }, source: { label: string; email: string; zoneName: string | null },
    found: { notes?: string[]; outcome?: ReportLine['outcome'] } = {}): void {
    const notes = [...(found.notes ?? [])];
    let outcome = found.outcome ?? 'mapped';
    const mail = this.channel('email');
    if (person.contacts[mail] === undefined) {
      person.contacts[mail] = oneLine(source.email, 256);
      notes.unshift(`login ${source.email} as the ${mail} contact`);
    }
    if (source.zoneName !== null && person.timeZone === null) {
      outcome = ImportBuilder.worst(outcome, 'approximated');
      notes.push(`time zone ${JSON.stringify(source.zoneName)} is not an IANA zone svc knows: left out (the first schedule's applies)`);
    }
    this.people.push(person);
    this.line('user', source.label, `person ${person.id}`, outcome, notes.join('; '));
  }

  /** An escalation policy of the source as `policy`, or not mapped when none of its steps notifies anyone svc knows. */
  addPolicy(source: string, policy: Policy, notes: readonly string[]): void {
    if (policy.steps.length === 0) {
      this.line('escalation-policy', source, null, 'not-mapped', 'none of its steps notifies anyone svc knows');
      return;
    }
    this.policies.push(policy);
    this.line('escalation-policy', source, `policy ${policy.id}`, notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
  }

  /** A schedule the import derives (no vendor rendering to verify it against), with the notice that says why. */
  addDerivedSchedule(schedule: Schedule, notice: string): void {
    this.schedules.push(schedule);
    this.notices.push(notice);
  }

  /**
   * The import as svc will load it. `routeNote` says where the vendor routed alerts instead, since svc
   * needs at least one route (§17) and routing is not part of any vendor's import.
   */
  finish(routeNote: string): ImportResult {
    if (this.people.length === 0) throw new Error('an import without people cannot be written (the vendor mapping checks this first)');
    for (const schedule of this.schedules) this.markGaps(schedule);
    const routes = this.routes(routeNote);
    const config: OncallConfig = {
      people: this.people,
      schedules: this.schedules,
      policies: this.policies,
      routes,
      incidents: { key: { kind: 'groupKey' }, reopenWindowMs: 10 * 60_000 },
      heartbeats: [],
    };
    const channels = [...this.kindsUsed].sort().map((kind) => ({ kind, channelId: this.options.channels[kind] }));
    return { vendor: this.vendor, config, overrides: this.overrides, lines: this.lines, notices: this.notices, channels,
      personOfUser: this.personOfUser, scheduleOfVendor: this.scheduleOfVendor };
  }

  /**
   * Each rotation's coverage over the next OVERLAP_DAYS, computed once: a schedule with an uncovered
   * instant in svc's coverage window gets `allowGaps: true`, as the source allowed it; rotations of one
   * group on call at once are said on the schedule's line.
   */
  private markGaps(schedule: Schedule): void {
    const from = this.options.nowMs;
    const entry = this.scheduleLines.get(schedule.id);
    // Overlaps are looked for over four weeks (rotations of up to 4 w); gaps only over svc's coverage window.
    const days = entry?.overlap ? OVERLAP_DAYS : COVERAGE_DAYS;
    const spans = schedule.rotations.map((r) => coveredSpans(r, from, from + days * DAY_MS));
    const add = (note: string, outcome: ReportLine['outcome']): void => {
      if (entry === undefined) {
        this.notices.push(`schedule ${schedule.id}: ${note}`);
        return;
      }
      entry.line.note = entry.line.note === '' ? note : `${entry.line.note}; ${note}`;
      entry.line.outcome = ImportBuilder.worst(entry.line.outcome, outcome);
    };
    const overlap = entry?.overlap ? firstOverlap(spans, entry.overlap.groups) : null;
    if (entry?.overlap && overlap !== null) {
      const [a, b] = [entry.overlap.names[overlap.a], entry.overlap.names[overlap.b]];
      add(`"${a}" and "${b}" are both on call from ${new Date(overlap.atMs).toISOString()}: ${entry.overlap.label} notifies both, svc the first ("${a}")`, 'approximated');
    }
    const gap = firstGap(spans, from, from + COVERAGE_DAYS * DAY_MS);
    if (gap === null) return;
    (schedule as { allowGaps: boolean }).allowGaps = true;
    add(`nobody is on call at times (first ${new Date(gap).toISOString()}), as in the source: allowGaps: true`, 'mapped');
  }

  /** svc needs a route (§17); the vendor's routing is not part of the import, so every alert goes to the first policy. */
  private routes(routeNote: string): Route[] {
    const severity = [...SEVERITIES];
    const firstPolicy = this.policies[0];
    const firstSchedule = this.schedules[0];
    if (firstPolicy !== undefined) {
      this.notices.push(`routes: every alert (P1, P2, P3) goes to policy ${firstPolicy.id}; ${routeNote}: edit routes in oncall.yaml`);
      return [{ match: { severity, labels: [] }, policy: firstPolicy.id }];
    }
    const target = firstSchedule !== undefined ? { kind: 'schedule' as const, id: firstSchedule.id } : { kind: 'person' as const, id: (this.people[0] as Person).id };
    this.notices.push(`routes: no escalation policy was imported, so every alert notifies ${target.kind}:${target.id} once; ${routeNote}: edit routes in oncall.yaml`);
    return [{ match: { severity, labels: [] }, notify: [target] }];
  }
}
