/**
 * Moving a large organisation in (contract §22, issue 36): a 2,000-person, 300-schedule export in each
 * vendor's answer shape (bench/lib/import-org.ts) imported by the built `svc import` as its own process
 * — wall time and peak RSS (GNU time) against the targets of 10 s and 256 MB — and `--verify` over 28
 * days of all 300 schedules, the rendering in the vendor's shape. Same-run baselines: the process that
 * only starts the CLI (`svc import --help`), and reading and parsing the export alone in this process.
 *
 *   npm run build && node --import tsx bench/import.ts [people=2000] [schedules=300]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONTACT_CHANNELS } from '../src/import/contact-channels.js';
import { IMPORT_VENDORS } from '../src/import/import-result.js';
import { readSavedDir } from '../src/import/read-saved-dir.js';
import { VENDOR_SPECS } from '../src/import/vendors.js';
import { writeOrg, writeRenderings } from './lib/import-org.js';

const PEOPLE = Number(process.argv[2] ?? 2000);
const SCHEDULES = Number(process.argv[3] ?? 300);
const NOW = '2026-03-20T12:00:00Z';
const NOW_MS = Date.parse(NOW);
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const note = (line: string): void => { process.stderr.write(`import: ${line}\n`); };
const r2 = (n: number): number => Math.round(n * 100) / 100;

/** Runs the built CLI under GNU time: exit code, wall and CPU (user + system) seconds, peak RSS in MiB. */
function timed(args: string[], cwd: string): { code: number; seconds: number; cpu: number; rssMiB: number; out: string } {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %M', process.execPath, MAIN, ...args], { cwd, encoding: 'utf8' });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(run.stderr);
  if (m === null) throw new Error(`no timing: ${run.stderr}`);
  return { code: run.status ?? -1, seconds: Number(m[1]), cpu: r2(Number(m[2]) + Number(m[3])), rssMiB: Math.round(Number(m[4]) / 1024),
    out: run.stdout + run.stderr.replace(/TIME .*\n?/, '') };
}

const rows: Array<Record<string, unknown>> = [];
for (const vendor of IMPORT_VENDORS) {
  const work = mkdtempSync(join(tmpdir(), `svc-bench-import-${vendor}-`));
  try {
    const exportDir = join(work, 'export');
    writeOrg(vendor, exportDir, { people: PEOPLE, schedules: SCHEDULES, nowMs: NOW_MS });
    const t0 = performance.now();
    const answers = readSavedDir(exportDir);
    const readMs = performance.now() - t0;
    const result = VENDOR_SPECS[vendor].map(answers, { nowMs: NOW_MS, channels: DEFAULT_CONTACT_CHANNELS });
    const renderDir = join(work, 'rendering');
    writeRenderings(vendor, renderDir, result, NOW_MS);
    const start = timed(['import', '--help'], work);
    const plain = timed(['import', vendor, exportDir, '--at', NOW, '--out', 'oncall.yaml'], work);
    const verified = timed(['import', vendor, exportDir, '--at', NOW, '--out', 'oncall.yaml', '--force', '--verify', renderDir], work);
    if (![0, 3].includes(plain.code) || ![0, 3].includes(verified.code)) throw new Error(`${vendor}: exit ${plain.code}/${verified.code}: ${plain.out}${verified.out}`);
    const identical = (verified.out.match(/: identical with /g) ?? []).length;
    const row = {
      vendor, people: result.config.people.length, schedules: result.config.schedules.length, policies: result.config.policies.length,
      overrides: result.overrides.length,
      importSeconds: plain.seconds, importCpuSeconds: plain.cpu, importRssMiB: plain.rssMiB,
      importWithVerifySeconds: verified.seconds, importWithVerifyCpuSeconds: verified.cpu, verifyCpuSeconds: r2(verified.cpu - plain.cpu),
      verifyRssMiB: verified.rssMiB,
      schedulesVerifiedIdentical: identical, cliStartSeconds: start.seconds, cliStartCpuSeconds: start.cpu, readParseSeconds: r2(readMs / 1000),
      importCpuVsStartCpu: r2(plain.cpu / start.cpu), importCpuVsRead: r2(plain.cpu / (readMs / 1000)),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
    console.log(`${vendor}: import ${plain.seconds} s wall, ${plain.cpu} s CPU, ${plain.rssMiB} MiB (targets 10 s, 256 MB); with --verify of ${identical} schedules over 28 days `
      + `${verified.seconds} s wall, ${verified.cpu} s CPU (+${row.verifyCpuSeconds} s), ${verified.rssMiB} MiB; baselines: the CLI starting ${start.cpu} s CPU `
      + `(import ${row.importCpuVsStartCpu}×), reading the export in-process ${row.readParseSeconds} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
note(`load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
