/**
 * import-report.md (contract §22.1): every object of the source, grouped by kind, as mapped,
 * approximated (how) or not mapped (why, and what to do); the channels.yaml entries oncall.yaml needs;
 * the overrides as `svc oncall override add` commands to run once the agent is up (overrides live in the
 * store, §17.6); and, with `--verify`, every difference between svc and the vendor's own rendering.
 */
import type { ImportObjectKind, ImportOutcome, ImportResult, ReportLine } from './import-result.js';
import { EXIT_APPROXIMATED, IMPORT_OBJECT_KINDS, importIsExact, isoTime } from './import-result.js';
import { channelSnippet } from './contact-channels.js';
import type { VerifyOutcome } from './verify-rendering.js';

const SECTION: Readonly<Record<ImportObjectKind, string>> = {
  'user': 'Users',
  'contact-method': 'Contact methods',
  'notification-rule': 'Notification rules',
  'team': 'Teams',
  'schedule': 'Schedules',
  'rotation': 'Rotations, layers and shifts',
  'restriction': 'Restrictions',
  'override': 'Overrides',
  'escalation-policy': 'Escalation policies',
  'escalation-rule': 'Escalation rules',
  'repeat': 'Repeats and loops',
};
const OUTCOME: Readonly<Record<ImportOutcome, string>> = { 'mapped': 'mapped', 'approximated': 'approximated', 'not-mapped': 'not mapped' };

const cell = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
const count = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string, many: string): string => `${count(n)} ${n === 1 ? one : many}`;

/** What the import wrote, counted: `4 people, 3 schedules, 2 policies, 1 override` (the CLI's first line and the report's). */
export function importedCounts(result: ImportResult): string {
  const c = result.config;
  return `${counted(c.people.length, 'person', 'people')}, ${counted(c.schedules.length, 'schedule', 'schedules')}, `
    + `${counted(c.policies.length, 'policy', 'policies')}, ${counted(result.overrides.length, 'override', 'overrides')}`;
}

export interface ReportContext {
  /** The vendor's name (`Opsgenie`). */
  label: string;
  /** Where the answers came from: the directory, or the API URL. */
  from: string;
  /** The oncall.yaml written. */
  out: string;
  nowMs: number;
  /** `--agent`, carried into the override commands. */
  agent: string | null;
}

/** The `svc oncall override add` command of each imported override. */
export function overrideCommands(result: ImportResult, agent: string | null): string[] {
  return result.overrides.map((o) => `svc oncall override add --schedule ${o.scheduleId} --person ${o.personId} --from ${isoTime(o.fromMs)} --to ${isoTime(o.toMs)}`
    + (agent === null ? '' : ` --agent ${agent}`));
}

function totals(lines: readonly ReportLine[]): Record<ImportOutcome, number> {
  const t: Record<ImportOutcome, number> = { 'mapped': 0, 'approximated': 0, 'not-mapped': 0 };
  for (const line of lines) t[line.outcome]++;
  return t;
}

/** `1,820 mapped, 150 approximated, 30 not mapped`. */
export function outcomeSummary(lines: readonly ReportLine[]): string {
  const t = totals(lines);
  return `${count(t.mapped)} mapped, ${count(t.approximated)} approximated, ${count(t['not-mapped'])} not mapped`;
}

function verificationSection(label: string, outcomes: readonly VerifyOutcome[], notCompared: readonly string[]): string[] {
  const out = ['## Verification', ''];
  const differing = outcomes.filter((o) => o.differences.length > 0);
  out.push(`${outcomes.length} schedule(s) compared with ${label}'s own rendering at every instant of its window; `
    + `${differing.length === 0 ? 'all identical' : `${differing.length} differ`}.`, '');
  for (const o of outcomes) {
    const window = `${isoTime(o.fromMs)} – ${isoTime(o.toMs)}${o.cut ? ' (the first 28 days of a longer rendering)' : ''}`;
    out.push(`- ${o.scheduleId} (${o.source}), ${window}: ${o.differences.length === 0 ? 'identical' : `${o.differences.length} difference(s)`}`);
  }
  for (const source of notCompared) out.push(`- ${source}: not compared (no saved rendering, or the schedule was not imported)`);
  if (differing.length > 0) {
    out.push('', `| schedule | from | to | ${label} | svc |`, '|---|---|---|---|---|');
    for (const o of differing) {
      for (const d of o.differences) out.push(`| ${cell(d.scheduleId)} | ${isoTime(d.fromMs)} | ${isoTime(d.toMs)} | ${cell(d.vendor.join(' + ') || 'nobody')} | ${cell(d.svc ?? 'nobody')} |`);
    }
  }
  out.push('');
  return out;
}

export interface ReportVerification {
  outcomes: readonly VerifyOutcome[];
  notCompared: readonly string[];
}

export function reportText(result: ImportResult, ctx: ReportContext, verify: ReportVerification | null): string {
  const exact = importIsExact(result);
  const out: string[] = [
    `# svc import from ${ctx.label}`,
    '',
    `Imported ${isoTime(ctx.nowMs)} from ${ctx.from} into ${ctx.out}: ${importedCounts(result)}.`,
    '',
    `**${exact ? 'Everything mapped exactly (exit 0).' : `Not everything mapped exactly (exit ${EXIT_APPROXIMATED}).`}** ${outcomeSummary(result.lines)}. `
      + 'Each approximated or unmapped line below says what was done instead, or why nothing was, and what to do.',
    '',
    '## Channels this file needs',
    '',
  ];
  if (result.channels.length === 0) out.push('No contact was imported.', '');
  else {
    out.push('oncall.yaml gives people contacts on these channels of the agent; `svc check` refuses a contact on a channel the agent does not have. '
      + 'Add them to channels.yaml (placeholders in capitals or `…`, secrets through `${secret:…}`):', '', '```yaml', 'channels:');
    for (const c of result.channels) out.push(`  ${channelSnippet(c.kind, c.channelId)}`);
    out.push('```', '');
  }
  if (result.notices.length > 0) {
    out.push('## What the import added', '', 'Not objects of the source, but written into oncall.yaml so svc can run it:', '');
    for (const n of result.notices) out.push(`- ${n}`);
    out.push('');
  }
  out.push('## Overrides to add', '');
  if (result.overrides.length === 0) out.push('No override of the source is in force or to come.', '');
  else {
    out.push('Overrides live in the store, not in oncall.yaml. Once the agent runs with this file, add them:', '', '```sh', ...overrideCommands(result, ctx.agent), '```', '');
  }
  if (verify !== null) out.push(...verificationSection(ctx.label, verify.outcomes, verify.notCompared));
  out.push('## Summary', '', '| kind | mapped | approximated | not mapped |', '|---|---:|---:|---:|');
  for (const kind of IMPORT_OBJECT_KINDS) {
    const lines = result.lines.filter((l) => l.kind === kind);
    if (lines.length === 0) continue;
    const t = totals(lines);
    out.push(`| ${SECTION[kind]} | ${count(t.mapped)} | ${count(t.approximated)} | ${count(t['not-mapped'])} |`);
  }
  out.push('');
  for (const kind of IMPORT_OBJECT_KINDS) {
    const lines = result.lines.filter((l) => l.kind === kind);
    if (lines.length === 0) continue;
    out.push(`## ${SECTION[kind]} (${count(lines.length)})`, '', `| ${ctx.label} | svc | result | how, or why not |`, '|---|---|---|---|');
    for (const l of lines) out.push(`| ${cell(l.source)} | ${cell(l.target ?? '—')} | ${OUTCOME[l.outcome]} | ${cell(l.note)} |`);
    out.push('');
  }
  return out.join('\n');
}
