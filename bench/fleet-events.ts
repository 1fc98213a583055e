/**
 * `svc fleet events` across 100 simulated hosts (contract §15: at most 16 at once, every page
 * followed). Each host is a local server answering the control-plane API (test/support/
 * fake-control-plane.ts): 4 pages of 100 events, each page after a delay; one host in ten is slow
 * (twice the delay). The built CLI runs as a child process, as an operator runs it.
 *
 * Baseline, measured in the same run: one fast host's time (walking its 4 pages with fetch from this
 * process, median of 5). Ideal fleet time = ⌈hosts ÷ 16⌉ × that; the ratio is the CLI's wall time
 * (process start to exit) over it, target ≤ 1.2. The CLI's fixed costs (process start, loading
 * fleet.yaml, the merge and the output: about 0.4 s here) count against it. Also printed: the ratio
 * against the CLI's own time for one host (process start included), the peak number of requests in
 * flight across all hosts (the cap), and the CLI's peak RSS (`ru_maxrss`, written by a preload at exit).
 *
 * Run: npm run build && node --import tsx bench/fleet-events.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFakeControlPlane } from '../test/support/fake-control-plane.js';
import type { FakeControlPlane, FakeRow } from '../test/support/fake-control-plane.js';
import { SVC_BIN } from '../test/support/svc.js';

const HOSTS = 100;
const CAP = 16;
const PAGES = 4;
const PAGE_ROWS = 100;
const DELAY_MS = 100;
const SLOW_EVERY = 10;
const RUNS = 3;

/** Reports the process's peak RSS (KiB) on fd 3 as it exits: no /usr/bin/time needed. */
const PRELOAD = 'data:text/javascript,' + encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => { try { writeSync(3, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS })); } catch {} });");

function rows(host: number): FakeRow[] {
  return Array.from({ length: PAGES * PAGE_ROWS }, (_, i) => ({
    id: `h${host}-e${i}`, ts: new Date(Date.UTC(2030, 0, 1) + i * 1000 + host).toISOString(), agentId: 'oncall-escalator',
    sourceId: 'alertmanager', kind: 'webhook', fingerprint: `fp-${host}-${i}`, status: 'processed',
    payload: { alerts: [{ labels: { alertname: 'HighLatency', severity: 'P2', service: 'checkout' } }] },
  }));
}

interface CliRun { wallMs: number; maxRssKiB: number; items: number; complete: boolean; code: number | null }

function runCli(file: string, extra: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', PRELOAD, SVC_BIN, 'fleet', 'events', '--json', '--file', file,
      '--page-size', String(PAGE_ROWS), ...extra], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: tmpdir() } });
    const out: Buffer[] = [];
    let err = '';
    let rss = '';
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => { rss += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      try {
        const body = JSON.parse(Buffer.concat(out).toString('utf8')) as { items: unknown[]; complete: boolean };
        resolve({ wallMs, maxRssKiB: (JSON.parse(rss) as { maxRssKiB: number }).maxRssKiB, items: body.items.length, complete: body.complete, code });
      } catch (e) {
        reject(new Error(`fleet events failed (exit ${code}): ${err}\n${String(e)}`));
      }
    });
  });
}

/** One host's pages walked from here, as the CLI walks them (no process start). */
async function oneHostMs(url: string): Promise<number> {
  const t = performance.now();
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ limit: String(PAGE_ROWS), order: 'desc' });
    if (cursor) q.set('cursor', cursor);
    const page = (await (await fetch(`${url}/events?${q.toString()}`)).json()) as { nextCursor: string | null };
    cursor = page.nextCursor;
  } while (cursor);
  return performance.now() - t;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fleet-'));
const gauge = { now: 0, peak: 0 };
const servers: FakeControlPlane[] = [];
try {
  for (let h = 0; h < HOSTS; h++) {
    servers.push(await startFakeControlPlane({ events: rows(h), delayMs: h % SLOW_EVERY === SLOW_EVERY - 1 ? 2 * DELAY_MS : DELAY_MS, gauge }));
  }
  const file = join(dir, 'fleet.yaml');
  writeFileSync(file, ['hosts:', ...servers.map((s, h) => `  - { name: h${String(h).padStart(3, '0')}, url: "${s.url}", timeoutMs: 10000 }`), ''].join('\n'));

  const hostTimes: number[] = [];
  for (let i = 0; i < 5; i++) hostTimes.push(await oneHostMs(servers[0]!.url));
  const oneHost = median(hostTimes);
  const single = await runCli(file, ['--host', 'h000']);

  const runs: CliRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    gauge.peak = 0;
    const r = await runCli(file, []);
    if (!r.complete || r.items !== HOSTS * PAGES * PAGE_ROWS || r.code !== 0) {
      throw new Error(`incomplete answer: ${r.items} items, complete ${r.complete}, exit ${r.code}`);
    }
    runs.push(r);
  }
  const ideal = Math.ceil(HOSTS / CAP) * oneHost;
  const wall = median(runs.map((r) => r.wallMs));
  const ratio = wall / ideal;
  const rssMiB = Math.max(...runs.map((r) => r.maxRssKiB)) / 1024;
  console.log(JSON.stringify({
    bench: 'fleet-events', hosts: HOSTS, cap: CAP, pagesPerHost: PAGES, rowsPerPage: PAGE_ROWS, pageDelayMs: DELAY_MS,
    slowHosts: HOSTS / SLOW_EVERY, oneHostMs: Math.round(oneHost), idealMs: Math.round(ideal), wallMs: runs.map((r) => Math.round(r.wallMs)),
    ratio: Number(ratio.toFixed(2)), singleHostCliMs: Math.round(single.wallMs),
    ratioVsSingleHostCli: Number((wall / (Math.ceil(HOSTS / CAP) * single.wallMs)).toFixed(2)), peakInFlight: gauge.peak,
    peakRssMiB: Number(rssMiB.toFixed(1)), singleHostRssMiB: Number((single.maxRssKiB / 1024).toFixed(1)), rows: HOSTS * PAGES * PAGE_ROWS,
  }));
  console.log(`fleet events, ${HOSTS} hosts (${HOSTS / SLOW_EVERY} slow) x ${PAGES} pages of ${PAGE_ROWS}: ${Math.round(wall)} ms (median of ${RUNS}) vs ` +
    `⌈${HOSTS}/${CAP}⌉ x ${Math.round(oneHost)} ms = ${Math.round(ideal)} ms → x${ratio.toFixed(2)} (target ≤ 1.2); ` +
    `x${(wall / (Math.ceil(HOSTS / CAP) * single.wallMs)).toFixed(2)} against ⌈${HOSTS}/${CAP}⌉ x the CLI's own time for one host (${Math.round(single.wallMs)} ms, process start included); ` +
    `peak ${gauge.peak} requests in flight; CLI peak RSS ${rssMiB.toFixed(1)} MiB for ${HOSTS * PAGES * PAGE_ROWS} rows (one host: ${(single.maxRssKiB / 1024).toFixed(1)} MiB)`);
} finally {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
}
