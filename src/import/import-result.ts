/**
 * What an import produces (contract §22.1): the OncallConfig the loader would produce from the written
 * oncall.yaml, the overrides to add with `svc oncall override add`, and one report line for every object
 * of the source — mapped, approximated (saying how) or not mapped (saying why and what to do). Nothing
 * of the source is dropped without a line. The vendor modules (`opsgenie/`, `pagerduty/`,
 * `grafana-oncall/`) are pure functions from the vendor's saved answers to this; the writers
 * (write-oncall-yaml.ts, write-report.ts) and the proof (verify-rendering.ts) read it.
 */
import type { OncallConfig } from '../oncall/oncall-config.js';

/** The vendors `svc import` reads (contract §22.1). */
export const IMPORT_VENDORS = ['opsgenie', 'pagerduty', 'grafana-oncall'] as const;
export type ImportVendor = (typeof IMPORT_VENDORS)[number];

/** How one object of the source came across. */
export const IMPORT_OUTCOMES = ['mapped', 'approximated', 'not-mapped'] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];

/** The kinds of source objects the report lists, in the order its sections appear. */
export const IMPORT_OBJECT_KINDS = [
  'user', 'contact-method', 'notification-rule', 'team', 'schedule', 'rotation', 'restriction', 'override',
  'escalation-policy', 'escalation-rule', 'repeat',
] as const;
export type ImportObjectKind = (typeof IMPORT_OBJECT_KINDS)[number];

/** One line of import-report.md: one object of the source and what became of it. */
export interface ReportLine {
  kind: ImportObjectKind;
  /** The object as the vendor names it: `user alice@example.com`, `rotation "Nights" of schedule "Primary"`. */
  source: string;
  /** Where it went in oncall.yaml (`person alice`, `schedule primary, rotation 2`); null when nowhere. */
  target: string | null;
  outcome: ImportOutcome;
  /** How it was approximated, or why it was not mapped and what to do; for a plain mapping, may be empty. */
  note: string;
}

/** An override of the source, to be added with `svc oncall override add` (overrides live in the store, §17.6). */
export interface ImportedOverride {
  scheduleId: string;
  personId: string;
  fromMs: number;
  toMs: number;
  /** The vendor's override, for the report. */
  source: string;
}

/** The kinds of contact the vendors know, each carried by one channel of the agent (docs/import.md). */
export const CONTACT_KINDS = ['email', 'sms', 'voice', 'push', 'slack', 'telegram'] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];

export interface ImportResult {
  vendor: ImportVendor;
  /** What oncall.yaml says, exactly as the loader would return it. */
  config: OncallConfig;
  overrides: readonly ImportedOverride[];
  lines: readonly ReportLine[];
  /**
   * What the import added that the source did not say (the route every oncall.yaml needs, schedules
   * derived for a vendor's "next on call"): not objects of the source, so they count for no outcome.
   */
  notices: readonly string[];
  /** The contact kinds some person has, with the channel id that carries each (channels.yaml needs them). */
  channels: ReadonlyArray<{ kind: ContactKind; channelId: string }>;
  /** Vendor user id → svc person id, so the vendor's rendering can be compared with svc's (verify). */
  personOfUser: ReadonlyMap<string, string>;
  /** Vendor schedule id → svc schedule id. */
  scheduleOfVendor: ReadonlyMap<string, string>;
}

/** What every vendor mapping is told besides the answers. */
export interface MapOptions {
  /** The instant the import runs at: what has ended, what starts later, what overrides are still to come. */
  nowMs: number;
  /** Contact kind → channel id (defaults in contact-channels.ts, `--channels` overrides). */
  channels: Readonly<Record<ContactKind, string>>;
}

/** The exit code of an import that approximated or left out anything (contract §22.1). */
export const EXIT_APPROXIMATED = 3;

/** True when every object mapped exactly. */
export function importIsExact(result: Pick<ImportResult, 'lines'>): boolean {
  return result.lines.every((line) => line.outcome === 'mapped');
}

/** An instant as the report, the override commands and the CLI print it: ISO-8601 UTC to the second. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
