/**
 * `/events?limit=100` latency over HTTP at 1,000 and at 1,000,000 stored events (contract §5: a
 * page costs the same at 10 million rows as at 1,000): the first page, a page from the middle via
 * its cursor, a filtered page (one agent of ten) and a two-filter page (source and kind). The ratio 1M / 1k of the
 * median latencies should be near 1 for every shape.
 *
 * The 1M-row table is built with one transaction of prepared inserts (ingestEvent would fsync each
 * row); the store's own indexes are in place, as they are in production.
 *
 * Run: node --import tsx bench/events-page.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createEventsRoute } from '../src/control-plane/routes/events-route.js';
import { encodeCursor } from '../src/store/cursor.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

const SIZES = [1_000, 1_000_000];
const REQUESTS = 300;
const WARMUP = 30;
const T0 = Date.UTC(2024, 0, 1);

interface Shape { name: string; query: (rows: number) => string }

const SHAPES: Shape[] = [
  { name: 'first', query: () => 'limit=100' },
  // The cursor a client would hold after walking half the table (cursors are opaque to clients; the bench makes one).
  { name: 'middle', query: (rows) => `limit=100&cursor=${encodeCursor({ key: Math.floor(rows / 2), order: 'desc' })}` },
  { name: 'filtered', query: () => 'limit=100&agent=agent-3' },
  { name: 'two-filters', query: () => 'limit=100&source=source-1&kind=webhook' },
];

function fill(path: string, rows: number): void {
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  const ins = db.prepare(`INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload)
    VALUES (?, ?, ?, ?, ?, ?, 'processed', ?)`);
  const kinds = ['webhook', 'alert', 'heartbeat', 'resolved'];
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      ins.run(randomUUID(), T0 + i, `agent-${i % 10}`, `source-${i % 2}`, kinds[i % 7 % 4], `fp-${i}`,
        `{"alert":"HighLatency","labels":{"severity":"P${i % 3 + 1}","service":"checkout"},"n":${i}}`);
    }
  })();
  db.close();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

interface Target { rows: number; base: string; buildMs: number; close(): Promise<void> }

async function serve(rows: number): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-events-'));
  const path = join(dir, 'svc.db');
  const store = await openSqliteStore({ path });
  const buildStart = performance.now();
  fill(path, rows);
  const buildMs = performance.now() - buildStart;
  const route = createEventsRoute({ store });
  const server = createServer((req, res) => {
    const ac = new AbortController();
    res.on('close', () => { ac.abort(); });
    void route({ req, res, url: new URL(req.url ?? '/', 'http://127.0.0.1'), signal: ac.signal, principal: { expiresAtMs: null } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    rows, buildMs, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events?`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function timePage(url: string, shape: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  const body = await res.json() as { items: unknown[] };
  if (res.status !== 200 || body.items.length !== 100) throw new Error(`${shape}: ${res.status}, ${body.items.length} items`);
  return performance.now() - t;
}

const targets = [await serve(SIZES[0]!), await serve(SIZES[1]!)];
const [small, large] = targets as [Target, Target];
type Stats = Record<string, { p50: number; p95: number }>;
const stats: [Stats, Stats] = [{}, {}];
try {
  for (const shape of SHAPES) {
    // Requests alternate between the two sizes, so a neighbour's burst on this shared machine
    // lands on both sides of the ratio alike.
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      for (const [k, t] of targets.entries()) {
        const ms = await timePage(t.base + shape.query(t.rows), shape.name);
        if (i >= WARMUP) times[k as 0 | 1].push(ms);
      }
    }
    stats[0][shape.name] = { p50: median(times[0]), p95: p95(times[0]) };
    stats[1][shape.name] = { p50: median(times[1]), p95: p95(times[1]) };
  }
} finally {
  for (const t of targets) await t.close();
}

const ratios = Object.fromEntries(SHAPES.map((s) => [s.name, Number((stats[1][s.name]!.p50 / stats[0][s.name]!.p50).toFixed(2))]));
const round = (r: Stats): Stats =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { p50: Number(v.p50.toFixed(3)), p95: Number(v.p95.toFixed(3)) }]));
console.log(JSON.stringify({
  bench: 'events-page', sizes: SIZES, requestsPerShape: REQUESTS, buildMs1M: Math.round(large.buildMs),
  latencyMs: { [small.rows]: round(stats[0]), [large.rows]: round(stats[1]) }, ratio1Mto1k: ratios,
}));
console.log(`events page (limit=100, median of ${REQUESTS}, sizes interleaved): `
  + SHAPES.map((s) => `${s.name} ${stats[0][s.name]!.p50.toFixed(2)} ms @1k vs ${stats[1][s.name]!.p50.toFixed(2)} ms @1M `
    + `(x${ratios[s.name]})`).join('; '));
