/**
 * Silences and label routes at their worst (issue 33.1, contract §24.3: "ingest p99 with the worst
 * accepted pattern stays within 1.2× of none"). Two real daemons (SQLite, the page tests'
 * oncall.yaml, N open pages each), same run:
 *
 *   - none: no silence, the plain route;
 *   - worst: a live silence `host=~WORST alertname=NotThisOne` (the pattern matches, so it is run to
 *     the end of the value, and the event still pages), and a route taking `host: "=~WORST"` first.
 *
 * WORST is the costliest pattern label-pattern.ts accepts among the shapes that made RE2's DFA grow
 * (it is checked to be accepted here). wrk, in its own process, posts Alertmanager bodies whose
 * `host` is 256 characters drawn at random per request — a new value every time, so no DFA state is
 * reused — with the daemon's bearer token; meanwhile the bench acknowledges open pages one after the
 * other through the admin socket (`svc ack`'s path) and times each. Rounds alternate none, worst,
 * none, worst…; the table takes each side's median round.
 *
 *   npm run build && node --import tsx bench/silence-cost.ts [rounds=3] [seconds=5] [connections=8]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminRequest } from '../src/cli/admin-client.js';
import { homePaths } from '../src/config/paths.js';
import { systemClock } from '../src/core/clock.js';
import { compileLabelPattern } from '../src/oncall/label-pattern.js';
import { r3 } from './lib/daemon.js';
import type { OncallBenchDaemon } from './lib/oncall.js';
import { oncallDaemon, pageWriter, percentile } from './lib/oncall.js';
import { lua, runWrkScript } from './lib/wrk.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 5);
const CONNECTIONS = Number(process.argv[4] ?? 8);
const PAGES = 2000;
/** Accepted, and the slowest of the accepted shapes on values that change every time (docs/performance.md). */
const WORST = '(?:.?){45}.*b';
const HOST_CHARS = 256;
const note = (line: string): void => { process.stderr.write(`silence-cost: ${line}\n`); };

if (!compileLabelPattern(WORST).ok) throw new Error(`${WORST} is refused: pick the worst accepted pattern again`);

interface Side { name: 'none' | 'worst'; d: OncallBenchDaemon; pages: string[]; token: string }

async function side(name: Side['name']): Promise<Side> {
  const d = await oncallDaemon({ oncall: { firstAfter: '1h', secondAfter: '1h' } });
  if (name === 'worst') {
    const file = join(d.dir, 'oncall.yaml');
    const plain = '  - { match: { severity: [P1, P2] }, policy: default }';
    writeFileSync(file, readFileSync(file, 'utf8').replace(plain, `  - { match: { severity: [P1, P2], labels: { host: "=~${WORST}" } }, policy: default }\n${plain}`));
  }
  const writer = await pageWriter(d);
  const pages = await writer.open(Array.from({ length: PAGES }, () => Date.now() + 3_600_000));
  await writer.close();
  await d.start();
  if (name === 'worst') {
    const answer = await adminRequest(homePaths(d.home).adminSocket, { op: 'silence.add', matchers: [`host=~${WORST}`, 'alertname=NotThisOne'], durationMs: 3_600_000, reason: 'bench: the worst accepted pattern', user: 'bench' }, { clock: systemClock, timeoutMs: 60_000 });
    if (!answer?.ok) throw new Error(`silence.add: ${JSON.stringify(answer)}`);
  }
  return { name, d, pages, token: readFileSync(join(d.home, 'secrets', 'alert-escalation', 'webhook-token'), 'utf8').trim() };
}

/** The template's mock alert with a new random `host` of HOST_CHARS characters (ending in `b`: WORST matches it) per request. */
function script(s: Side): string {
  const { groupKey: _groupKey, ...alert } = JSON.parse(readFileSync(join(s.d.dir, 'fixtures/mock-alert.json'), 'utf8')) as
    { groupKey?: string; alerts: Array<{ labels: Record<string, string> }> };
  for (const a of alert.alerts) a.labels.host = '@HOST@';
  const [prefix, suffix] = JSON.stringify(alert).split('"@HOST@"') as [string, string];
  return `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = ${lua(`Bearer ${s.token}`)}
local prefix, suffix = ${lua(`${prefix}"`)}, ${lua(`"${suffix}`)}
request = function()
  local t = {}
  for i = 1, ${HOST_CHARS - 1} do t[i] = (math.random(2) == 1) and "a" or "b" end
  return wrk.format(nil, nil, nil, prefix .. table.concat(t) .. "b" .. suffix)
end`;
}

interface RoundResult { ingestRps: number; ingestP99Ms: number; errors: number; acks: number; ackP50Ms: number; ackP99Ms: number }

async function round(s: Side): Promise<RoundResult> {
  const socket = homePaths(s.d.home).adminSocket;
  let loading = true;
  const ackMs: number[] = [];
  const acking = (async () => {
    while (loading && s.pages.length > 0) {
      const page = s.pages.shift() as string;
      const t0 = performance.now();
      const answer = await adminRequest(socket, { op: 'page.act', page, action: 'ack', user: 'bench', as: 'alice' }, { clock: systemClock, timeoutMs: 60_000 });
      if (!answer?.ok) throw new Error(`ack ${page}: ${JSON.stringify(answer)}`);
      ackMs.push(performance.now() - t0);
    }
  })();
  const w = await runWrkScript({ script: script(s), url: s.d.ingestUrl, connections: CONNECTIONS, threads: 1, seconds: SECONDS });
  loading = false;
  await acking;
  return { ingestRps: Math.round(w.rps), ingestP99Ms: r3(w.p99Ms), errors: w.errors, acks: ackMs.length, ackP50Ms: r3(percentile(ackMs, 50)),
    ackP99Ms: r3(percentile(ackMs, 99)) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const sides = [await side('none'), await side('worst')];
try {
  const results: Record<Side['name'], RoundResult[]> = { none: [], worst: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const s of sides) {
      const r = await round(s);
      if (r.errors > 0) throw new Error(`${s.name}: ${r.errors} errors under load`);
      results[s.name].push(r);
      note(`round ${i + 1} ${s.name}: ${JSON.stringify(r)}`);
    }
  }
  const m = (name: Side['name'], key: keyof RoundResult): number => median(results[name].map((r) => r[key]));
  const out = {
    bench: 'silence-cost', worstPattern: WORST, hostChars: HOST_CHARS, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS,
    none: { ingestRps: m('none', 'ingestRps'), ingestP99Ms: m('none', 'ingestP99Ms'), ackP50Ms: m('none', 'ackP50Ms'), ackP99Ms: m('none', 'ackP99Ms') },
    worst: { ingestRps: m('worst', 'ingestRps'), ingestP99Ms: m('worst', 'ingestP99Ms'), ackP50Ms: m('worst', 'ackP50Ms'), ackP99Ms: m('worst', 'ackP99Ms') },
    ingestP99Ratio: r3(m('worst', 'ingestP99Ms') / m('none', 'ingestP99Ms')),
    ackP99Ratio: r3(m('worst', 'ackP99Ms') / m('none', 'ackP99Ms')),
    roundRatios: results.worst.map((w, i) => r3(w.ingestP99Ms / (results.none[i]?.ingestP99Ms ?? NaN))),
    target: 1.2,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  for (const s of sides) {
    await s.d.stop();
    s.d.cleanup();
  }
}
