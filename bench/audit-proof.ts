/**
 * What proving the trail costs (contract §20), same-run ratios:
 *
 * 1. Checkpoints on durable ingest: the whole daemon (`svc up`, ingest + dispatch to the file
 *    channel) with `audit.checkpoints` (everyRows 1000, everySeconds 60) against the same daemon
 *    without, each driven by wrk in its own process, rounds alternating. Target: ratio ≥ 0.95.
 * 2. The story of an event at 1,000 and at 1,000,000 audit rows: GET /events/<id>/story on the real
 *    route and store, sequential requests after one warm-up request (which verifies the chain once,
 *    store/chain-watermark.ts), median and p99, by how far the event is from the head — the story
 *    checks every row from its first to the head when asked for (Store.verifyAudit from there, in the
 *    verify threads): the newest events (what a page is about; target: ratio ≈ 1), events ~40,000 rows
 *    back, and the oldest (the whole chain; a few requests: it is the cost of verify=1).
 *
 * Run: node --import tsx bench/audit-proof.ts [bigRows] [story]   (`story`: part 2 only)
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { canonicalJson, GENESIS_HASH, sha256Hex, storedRowText } from '../src/audit/chain.js';
import { isoTs, systemClock } from '../src/core/clock.js';
import { createStoryRoute } from '../src/control-plane/routes/story-route.js';
import { createReadGate } from '../src/control-plane/read-gate.js';
import type { RouteHandler } from '../src/control-plane/route.js';
import { createChainWatermark } from '../src/store/chain-watermark.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { benchDaemon, r3, signedAlert } from './lib/daemon.js';
import { runWrk } from './lib/wrk.js';

const BIG = Number(process.argv[2] ?? 1_000_000);
const T0 = Date.UTC(2026, 0, 1);
const ROUNDS = 3;

async function checkpointCost(): Promise<Record<string, unknown>> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const checkpoints = '\naudit:\n  checkpoints:\n    key: ${secret:audit/checkpoint-key}\n    everyRows: 1000\n    everySeconds: 60\n';
  const withCp = await benchDaemon({ agentYaml: checkpoints });
  mkdirSync(join(withCp.home, 'secrets', 'audit'), { recursive: true, mode: 0o700 });
  writeFileSync(join(withCp.home, 'secrets', 'audit', 'checkpoint-key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const without = await benchDaemon();
  const rates = { with: [] as number[], without: [] as number[], withP99: [] as number[], withoutP99: [] as number[] };
  try {
    await withCp.start();
    await without.start();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, d] of [['with', withCp], ['without', without]] as const) {
        const { body, headers } = signedAlert(d.dir, d.secret);
        const r = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 5, connections: 32 });
        rates[name].push(r.rps);
        rates[name === 'with' ? 'withP99' : 'withoutP99'].push(r.p99Ms);
      }
    }
    const signed = (await (await fetch(`${withCp.cp}/audit/checkpoints?limit=1000`)).json()) as { items: unknown[] };
    const best = (xs: number[]): number => Math.max(...xs);
    const ratio = best(rates.with) / best(rates.without);
    return { part: 'checkpoint-cost', withRps: Math.round(best(rates.with)), withoutRps: Math.round(best(rates.without)), ratio: r3(ratio),
      target: 0.95, pass: ratio >= 0.95, withP99Ms: r3(Math.min(...rates.withP99)), withoutP99Ms: r3(Math.min(...rates.withoutP99)),
      checkpointsSigned: signed.items.length };
  } finally {
    await withCp.stop();
    await without.stop();
    withCp.cleanup();
    without.cleanup();
  }
}

/** A chain of `rows` rows, three about each event (accepted, triage, delivered); the ids of the events with all three. */
async function buildStore(path: string, rows: number): Promise<string[]> {
  await (await openSqliteStore({ path })).close(); // schema, trigger included
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  const ins = db.prepare(`INSERT INTO audit (seq, ts, ts_ms, kind, actor, agent_id, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const kinds = ['event.accepted', 'triage.decision', 'message.delivered'];
  const ids: string[] = [];
  let prevHash = GENESIS_HASH;
  for (let done = 0; done < rows; done += 100_000) {
    db.transaction(() => {
      for (let seq = done + 1; seq <= Math.min(rows, done + 100_000); seq++) {
        const n = Math.floor((seq - 1) / 3);
        const eventId = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
        // Only events with all three rows (the last one's may be cut off when rows is not a multiple of 3: 1,000 is not).
        if ((seq - 1) % 3 === 0 && seq + 2 <= rows) ids.push(eventId);
        const row = { seq, ts: isoTs(T0 + seq), kind: kinds[(seq - 1) % 3] as string, actor: 'agent:oncall-escalator', agentId: 'oncall-escalator',
          dataText: canonicalJson({ eventId, channelId: 'oncall-dm', attempt: 1 }), prevHash, hash: '' };
        row.hash = sha256Hex(`${prevHash}\n${storedRowText(row)}`);
        ins.run(seq, row.ts, T0 + seq, row.kind, row.actor, row.agentId, row.dataText, prevHash, row.hash);
        prevHash = row.hash;
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return ids;
}

interface Latency { medianMs: number; p99Ms: number }

function latency(times: number[]): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number): number => r3(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number);
  return { medianMs: at(0.5), p99Ms: at(0.99) };
}

async function storyLatency(rows: number): Promise<{ rows: number; warmupMs: number; newest: Latency; back40k: Latency | null; oldest: Latency }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-story-'));
  try {
    const path = join(dir, 'svc.db');
    const ids = await buildStore(path, rows);
    const store = await openSqliteStore({ path });
    const watermark = createChainWatermark(store, systemClock);
    const route: RouteHandler = createStoryRoute({ store, watermark, report: () => undefined, gate: createReadGate(4) });
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      void route({ req, res, url, signal: new AbortController().signal, principal: { expiresAtMs: null } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (id: string): Promise<number> => {
      const t = performance.now();
      const res = await fetch(`${base}/events/${id}/story`);
      const body = (await res.json()) as { verified: boolean; rows: unknown[] };
      if (res.status !== 200 || !body.verified || body.rows.length !== 3) throw new Error(`story of ${id}: ${res.status}`);
      return performance.now() - t;
    };
    const warmupMs = await get(ids[ids.length - 1] as string);
    const pick = (from: number, to: number): string => ids[Math.max(0, from + Math.floor(Math.random() * (to - from)))] as string;
    const run = async (n: number, id: () => string): Promise<Latency> => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) times.push(await get(id()));
      return latency(times);
    };
    // Three rows an event: the newest 30 events are the last 90 rows.
    const newest = await run(500, () => pick(ids.length - 30, ids.length));
    const back = Math.floor(40_000 / 3);
    const back40k = ids.length > back + 10 ? await run(100, () => pick(ids.length - back - 10, ids.length - back)) : null;
    const oldest = await run(5, () => pick(0, 10));
    server.close();
    await store.close();
    return { rows, warmupMs: r3(warmupMs), newest, back40k, oldest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const small = await storyLatency(1000);
const big = await storyLatency(BIG);
const story = { part: 'story-latency', small, big, newestMedianRatio: r3(big.newest.medianMs / small.newest.medianMs),
  newestP99Ratio: r3(big.newest.p99Ms / small.newest.p99Ms) };
process.stdout.write(`${JSON.stringify(story)}\n`);
process.stdout.write(`audit-proof: story of the newest events, median ${small.newest.medianMs} ms at ${small.rows} rows, ${big.newest.medianMs} ms at ${big.rows} rows `
  + `(ratio ${story.newestMedianRatio}); p99 ${small.newest.p99Ms} / ${big.newest.p99Ms} ms; 40,000 rows back: median ${big.back40k?.medianMs ?? '-'} ms; `
  + `the oldest (whole chain): median ${small.oldest.medianMs} / ${big.oldest.medianMs} ms; first story ${small.warmupMs} / ${big.warmupMs} ms\n`);
if (process.argv[3] === 'story') process.exit(0);
const cost = await checkpointCost();
process.stdout.write(`${JSON.stringify(cost)}\n`);
process.stdout.write(`audit-proof: durable ingest with checkpoints ${String(cost.withRps)} req/s vs without ${String(cost.withoutRps)} req/s = ${String(cost.ratio)} `
  + `(target ≥ 0.95); ${String(cost.checkpointsSigned)} checkpoints signed\n`);
