/**
 * What the three vendor mappings share while they translate: the people, schedules, policies and
 * overrides found so far, the ids handed out, the report lines, and the finishing touches every
 * imported file needs — a route (svc needs one; the vendors route elsewhere), and `allowGaps: true` on
 * a schedule that, like the vendor's, leaves hours uncovered (svc refuses silent gaps, §17.1).
 */
import type { OncallConfig, Person, Policy, Route, Schedule } from '../oncall/oncall-config.js';
import { isKnownZone } from '../oncall/zone-time.js';
import { COVERAGE_DAYS } from '../oncall/load-oncall.js';
import { scheduleShifts } from '../oncall/schedule.js';
import { DAY_MS } from '../oncall/zone-time.js';
import type { ContactKind, ImportObjectKind, ImportOutcome, ImportResult, ImportVendor, ImportedOverride, MapOptions, ReportLine } from './import-result.js';
import { IdAllocator } from './slug-ids.js';

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
  private readonly scheduleLines = new Map<string, ReportLine>();

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

  /** A person's time zone if svc knows it, else null (the report says so). */
  static zone(name: string | null): string | null {
    return name !== null && isKnownZone(name) ? name : null;
  }

  /** A schedule of the source and its report line (the gap check adds to the line). */
  addSchedule(schedule: Schedule, vendorId: string, line: ReportLine): void {
    this.schedules.push(schedule);
    this.scheduleOfVendor.set(vendorId, schedule.id);
    this.scheduleLines.set(schedule.id, line);
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

  /** A schedule with an uncovered instant in the coverage window gets `allowGaps: true`, as the vendor allowed it. */
  private markGaps(schedule: Schedule): void {
    const from = this.options.nowMs;
    const gap = scheduleShifts(schedule, [], from, from + COVERAGE_DAYS * DAY_MS).find((s) => s.person === null);
    if (gap === undefined) return;
    (schedule as { allowGaps: boolean }).allowGaps = true;
    const note = `nobody is on call at times (first ${new Date(gap.startMs).toISOString()}), as in the source: allowGaps: true`;
    const line = this.scheduleLines.get(schedule.id);
    if (line) line.note = line.note === '' ? note : `${line.note}; ${note}`;
    else this.notices.push(`schedule ${schedule.id}: ${note}`);
  }

  /** svc needs a route (§17); the vendor's routing is not part of the import, so every alert goes to the first policy. */
  private routes(routeNote: string): Route[] {
    const severity = [...SEVERITIES];
    const firstPolicy = this.policies[0];
    const firstSchedule = this.schedules[0];
    if (firstPolicy !== undefined) {
      this.notices.push(`routes: every alert (P1, P2, P3) goes to policy ${firstPolicy.id}; ${routeNote}: edit routes in oncall.yaml`);
      return [{ match: { severity }, policy: firstPolicy.id }];
    }
    const target = firstSchedule !== undefined ? { kind: 'schedule' as const, id: firstSchedule.id } : { kind: 'person' as const, id: (this.people[0] as Person).id };
    this.notices.push(`routes: no escalation policy was imported, so every alert notifies ${target.kind}:${target.id} once; ${routeNote}: edit routes in oncall.yaml`);
    return [{ match: { severity }, notify: [target] }];
  }
}
