/**
 * `svc import opsgenie|pagerduty|grafana-oncall DIR [--out FILE] [--agent A] [--api URL --token-env VAR]
 * [--verify TIMELINE] [--channels KIND=ID,…] [--at T] [--force]` (contract §22.1, §22.2).
 *
 * Reads the vendor's saved answers from DIR (or fetches them live into DIR), maps them (src/import/),
 * writes oncall.yaml and import-report.md beside it — both to temporary files first and renamed only
 * once both are whole, so a failure leaves no half-written file — and, with `--verify`, holds svc's
 * answer against the vendor's own rendering at every instant of its window.
 *
 * Exit 0 when everything mapped exactly, 3 when something was approximated or not mapped, 2 on
 * unreadable input (file and JSON path named) or a usage error, 1 when `--verify` found a difference or
 * the live fetch failed.
 */
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { ID_PATTERN } from '../config/schema.js';
import { EXIT, UsageError } from '../core/errors.js';
import type { Override } from '../oncall/oncall-config.js';
import type { Answers } from '../import/answers.js';
import { parseChannelMap } from '../import/contact-channels.js';
import { fetchLive } from '../import/fetch-live.js';
import type { ContactKind, ImportResult, ImportVendor } from '../import/import-result.js';
import { EXIT_APPROXIMATED, IMPORT_VENDORS, importIsExact, isoTime } from '../import/import-result.js';
import { ImportInputError } from '../import/json-cursor.js';
import { readSavedDir } from '../import/read-saved-dir.js';
import type { VendorSpec } from '../import/vendor-spec.js';
import { VENDOR_SPECS } from '../import/vendors.js';
import type { VerifyOutcome } from '../import/verify-rendering.js';
import { compareRendering } from '../import/verify-rendering.js';
import { oncallYamlText } from '../import/write-oncall-yaml.js';
import { importedCounts, outcomeSummary, reportText } from '../import/write-report.js';
import type { CliContext } from './context.js';
import { parseInstant } from '../oncall/oncall-input.js';
import { printTable } from './style.js';

export const REPORT_FILE = 'import-report.md';

export interface ImportOptions {
  out?: string;
  agent?: string;
  api?: string;
  tokenEnv?: string;
  verify?: string;
  channels?: string;
  at?: string;
  force: boolean;
}

/** Writes every file to a temporary name beside it, then renames them all: each is old or whole, never half. */
function writeAll(files: ReadonlyArray<{ path: string; text: string }>): void {
  const temps = files.map((f) => ({ ...f, tmp: join(dirname(f.path), `.${basename(f.path)}.tmp-${randomBytes(6).toString('hex')}`) }));
  try {
    for (const f of temps) writeFileSync(f.tmp, f.text, { flag: 'wx', mode: 0o644 });
    for (const f of temps) renameSync(f.tmp, f.path);
  } finally {
    for (const f of temps) rmSync(f.tmp, { force: true });
  }
}

function checkOptions(command: string, opts: ImportOptions, ctx: CliContext): { nowMs: number; channels: Record<ContactKind, string> } {
  if (opts.agent !== undefined && !ID_PATTERN.test(opts.agent)) throw new UsageError(`${command}: --agent must match ${ID_PATTERN.source}`);
  if ((opts.api === undefined) !== (opts.tokenEnv === undefined)) throw new UsageError(`${command}: --api URL and --token-env VAR go together`);
  const channels = parseChannelMap(opts.channels);
  if (!channels.ok) throw new UsageError(`${command}: --channels: ${channels.error}`);
  let nowMs = ctx.clock.now();
  if (opts.at !== undefined) {
    const at = parseInstant('--at', opts.at);
    if (!at.ok) throw new UsageError(`${command}: ${at.error}`);
    nowMs = at.value;
  }
  return { nowMs, channels: channels.value };
}

/** The answers: fetched live into DIR (which must not hold anything yet), or read from it. */
async function loadAnswers(command: string, spec: VendorSpec, dir: string, opts: ImportOptions, nowMs: number, ctx: CliContext): Promise<Answers> {
  if (opts.api === undefined || opts.tokenEnv === undefined) return readSavedDir(dir);
  let url: URL;
  try {
    url = new URL(opts.api);
  } catch {
    throw new UsageError(`${command}: --api must be an http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${command}: --api must be an http(s) URL`);
  if (url.username !== '' || url.password !== '') throw new UsageError(`${command}: --api must not carry credentials; the token comes from --token-env`);
  const token = ctx.env[opts.tokenEnv]?.trim() ?? '';
  if (token === '') throw new UsageError(`${command}: --token-env ${opts.tokenEnv}: the variable is not set (it holds the ${spec.label} API token)`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${command}: ${dir} is not empty: a live import saves the export there; give a new directory`);
  ctx.stderr(`fetching the ${spec.label} export from ${url.origin} into ${dir}\n`);
  return fetchLive({ spec, apiUrl: url.toString(), token, dir, nowMs, clock: ctx.clock, progress: (line) => ctx.stderr(`${line}\n`) });
}

interface Verified {
  outcomes: VerifyOutcome[];
  notCompared: string[];
}

function verify(spec: VendorSpec, result: ImportResult, timeline: Answers, agent: string): Verified {
  const renderings = spec.renderings(timeline, result);
  const overrides: Override[] = result.overrides.map((o, i) => ({ id: `import-${i + 1}`, agentId: agent, scheduleId: o.scheduleId, personId: o.personId, fromMs: o.fromMs, toMs: o.toMs }));
  const outcomes = renderings.flatMap((r) => {
    const schedule = result.config.schedules.find((s) => s.id === r.scheduleId);
    return schedule === undefined ? [] : [compareRendering(schedule, overrides, r)];
  });
  const compared = new Set(outcomes.map((o) => o.scheduleId));
  const notCompared = [...result.scheduleOfVendor].filter(([, id]) => !compared.has(id)).map(([vendorId, id]) => `schedule ${id} (${vendorId})`);
  return { outcomes, notCompared };
}

/** What the person does next, in the report's order: the channels, svc check, the overrides once svc runs. */
function nextSteps(result: ImportResult): string {
  const steps = [...(result.channels.length > 0 ? [`add the channels ${REPORT_FILE} lists to channels.yaml`] : []), 'svc check',
    ...(result.overrides.length > 0 ? [`once svc runs, the override commands ${REPORT_FILE} lists`] : [])];
  return steps.map((step, i) => `${i === 0 ? 'next:' : '     '} ${i + 1}. ${step}\n`).join('');
}

/** A rendering that starts longer ago than this was exported some time ago (a fresh one starts about now). */
const STALE_EXPORT_MS = 3_600_000;

/**
 * `--verify` of an export taken some time ago, without `--at`: what had ended by now (an override, a
 * shift) was left out of oncall.yaml but is in the vendor's rendering, so the rendering's past differs.
 * Said beside the differences, with the `--at` that judges as of the export.
 */
function staleExportHint(differing: readonly VerifyOutcome[], nowMs: number): string | null {
  const fromMs = Math.min(...differing.map((o) => o.fromMs));
  if (!(fromMs < nowMs - STALE_EXPORT_MS)) return null;
  return `the rendering starts at ${isoTime(fromMs)}, before now: what had ended by now (overrides, shifts) was left out of oncall.yaml, `
    + `which alone makes such differences; --at ${isoTime(fromMs)} judges as of the export\n`;
}

function printVerified(label: string, verified: Verified, ctx: CliContext, stale: { nowMs: number } | null): void {
  const differing = verified.outcomes.filter((o) => o.differences.length > 0);
  for (const o of verified.outcomes) {
    ctx.stdout(`verify ${o.scheduleId}: ${o.differences.length === 0 ? 'identical' : `${o.differences.length} difference(s)`} with ${label} over ${isoTime(o.fromMs)} – ${isoTime(o.toMs)}`
      + `${o.cut ? ' (first 28 days)' : ''}\n`);
  }
  for (const n of verified.notCompared) ctx.stdout(`verify ${n}: not compared (no saved rendering)\n`);
  if (differing.length === 0) return;
  printTable(ctx, [{ header: 'SCHEDULE', whole: true }, { header: 'FROM' }, { header: 'TO' }, { header: label.toUpperCase() }, { header: 'SVC' }],
    differing.flatMap((o) => o.differences.map((d) => [d.scheduleId, isoTime(d.fromMs), isoTime(d.toMs), d.vendor.join(' + ') || 'nobody', d.svc ?? 'nobody'])));
  const hint = stale === null ? null : staleExportHint(differing, stale.nowMs);
  if (hint !== null) ctx.stdout(hint);
}

export async function importCommand(vendor: string, dir: string, opts: ImportOptions, ctx: CliContext): Promise<number> {
  const command = 'svc import';
  if (!(IMPORT_VENDORS as readonly string[]).includes(vendor)) throw new UsageError(`${command}: unknown source ${JSON.stringify(vendor.slice(0, 40))} (sources: ${IMPORT_VENDORS.join(', ')})`);
  const spec = VENDOR_SPECS[vendor as ImportVendor];
  const { nowMs, channels } = checkOptions(command, opts, ctx);
  const out = resolve(ctx.cwd, opts.out ?? 'oncall.yaml');
  const report = join(dirname(out), REPORT_FILE);
  if (!existsSync(dirname(out))) throw new UsageError(`${command}: --out: the directory ${dirname(out)} does not exist`);
  for (const path of [out, report]) if (existsSync(path) && !opts.force) throw new UsageError(`${command}: ${path} exists; --force replaces it`);
  const source = resolve(ctx.cwd, dir);
  try {
    const answers = await loadAnswers(command, spec, source, opts, nowMs, ctx);
    const result = spec.map(answers, { nowMs, channels });
    let verified: Verified | null = null;
    if (opts.verify !== undefined) {
      const timelineDir = resolve(ctx.cwd, opts.verify);
      verified = verify(spec, result, timelineDir === source ? answers : readSavedDir(timelineDir), opts.agent ?? 'import');
      if (verified.outcomes.length === 0) {
        throw new ImportInputError(opts.verify, '$', `no ${spec.label} rendering of an imported schedule is there (docs/import.md says which answers --verify reads)`);
      }
    }
    const header = `Imported from ${spec.label} by svc import at ${isoTime(nowMs)}; ${REPORT_FILE} says what mapped and how.\n`
      + 'Add the channels the report lists to channels.yaml, then run svc check.';
    writeAll([
      { path: out, text: oncallYamlText(result.config, header) },
      { path: report, text: reportText(result, { label: spec.label, from: opts.api ?? source, out, nowMs, agent: opts.agent ?? null }, verified) },
    ]);
    ctx.stdout(`imported ${importedCounts(result)} from ${spec.label}\n`);
    ctx.stdout(`${outcomeSummary(result.lines)}\nwrote ${out} and ${report}\n`);
    if (verified !== null) {
      printVerified(spec.label, verified, ctx, opts.at === undefined ? { nowMs } : null);
      if (verified.outcomes.some((o) => o.differences.length > 0)) return EXIT.runtime;
    }
    ctx.stdout(nextSteps(result));
    return importIsExact(result) ? EXIT.ok : EXIT_APPROXIMATED;
  } catch (err) {
    if (!(err instanceof ImportInputError)) throw err;
    ctx.stderr(`${command}: unreadable input: ${err.message}\n`);
    return EXIT.usage;
  }
}
