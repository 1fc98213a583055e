/**
 * The console's views at 1,000 and at 1,000,000 stored events (contract §19.5: "well under 200 ms at
 * 1 million events"): /ui/events (first page, filtered, a page from the middle by its cursor), one
 * event (/ui/events/<id>, with its audit rows) and /ui/dlq, served by the console route over the
 * SQLite store exactly as the daemon serves them. The ratio 1M / 1k of the medians should be near 1.
 * Then the first view through `svc console`'s proxy (the one-time link, its redirect, /ui/), and the
 * bytes of all static assets (at most 100 KB).
 *
 * Then the on-call sections (bench/lib/console-oncall.ts, real daemons, wrk in its own process): the
 * views with 10,000 open pages vs 10 (§24.8: under 200 ms), and `/status` with the team console
 * listening and people signed in vs without (§24.6: ratio ≥ 0.95).
 *
 * Run: npm run build && node --import tsx bench/console-views.ts [all|events|pages|team]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { GENESIS_HASH, sha256Hex, storedRowText } from '../src/audit/chain.js';
import { startConsoleProxy } from '../src/cli/console/console-proxy.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../src/control-plane/read-gate.js';
import { ASSETS, createUiRoute } from '../src/control-plane/ui/ui-route.js';
import { systemClock } from '../src/core/clock.js';
import { createChainWatermark } from '../src/store/chain-watermark.js';
import { encodeCursor } from '../src/store/cursor.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { pagesSection, teamSection } from './lib/console-oncall.js';

const SECTION = process.argv[2] ?? 'all';
if (!['all', 'events', 'pages', 'team'].includes(SECTION)) throw new Error(`the section is all, events, pages or team, not ${SECTION}`);

const SIZES = [1_000, 1_000_000];
const REQUESTS = 200;
const WARMUP = 20;
const T0 = Date.UTC(2024, 0, 1);

const SNAPSHOT = JSON.stringify({
  version: 1, pid: 1, startedAt: new Date(T0).toISOString(), uptimeSeconds: 1,
  agents: [{ id: 'agent-0', state: 'running', provider: 'rules', logWriteFailures: 0,
    sources: [{ id: 'source-0', type: 'webhook', summary: 'POST http://127.0.0.1:8787/webhooks/source-0', received: 1, processed: 1, dlq: 0, inflight: 0 }],
    channels: [{ id: 'oncall-dm', type: 'file', direction: 'outbound', ready: true }], mcpServers: [] }],
  controlPlane: { bind: '127.0.0.1', port: 9464, auth: { enabled: false, provider: null } },
  store: { kind: 'sqlite', replica: 'r', leader: true, retention: { events: null, deadLetters: null } }, audit: null,
});

/**
 * Events (one in 50 dead-lettered, with its letter) and their event.accepted audit rows, hashed and
 * linked as svc writes them: the event view's verdict brings the chain watermark up to the head, and
 * a broken chain would be verified whole on every view (an unhashed fill measured that, not the view).
 */
function fill(path: string, rows: number): string {
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  const ev = db.prepare(`INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload) VALUES (?, ?, ?, ?, 'alert', ?, ?, ?)`);
  const dl = db.prepare(`INSERT INTO dead_letters (id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload)
    VALUES (?, ?, ?, ?, ?, 'delivery-failed', 'HTTP 503', 5, ?)`);
  const au = db.prepare(`INSERT INTO audit (seq, ts, ts_ms, kind, actor, agent_id, data, prev_hash, hash) VALUES (?, ?, ?, 'event.accepted', ?, ?, ?, ?, ?)`);
  let middle = '';
  let prevHash = GENESIS_HASH;
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const id = randomUUID();
      if (i === Math.floor(rows / 2)) middle = id;
      const agent = `agent-${i % 10}`;
      const payload = `{"alerts":[{"labels":{"alertname":"HighLatency","severity":"P${i % 3 + 1}"},"annotations":{"summary":"p99 above 2 s"}}],"n":${i}}`;
      ev.run(id, T0 + i, agent, `source-${i % 2}`, `fp-${i}`, i % 50 === 0 ? 'dead-lettered' : 'processed', payload);
      if (i % 50 === 0) dl.run(randomUUID(), T0 + i, agent, `source-${i % 2}`, id, payload);
      const row = { seq: i + 1, ts: new Date(T0 + i).toISOString(), kind: 'event.accepted', actor: `source:source-${i % 2}`, agentId: agent,
        dataText: `{"eventId":"${id}"}`, prevHash, hash: '' };
      const hash = sha256Hex(`${prevHash}\n${storedRowText(row)}`);
      au.run(row.seq, row.ts, T0 + i, row.actor, agent, row.dataText, prevHash, hash);
      prevHash = hash;
    }
  })();
  db.close();
  return middle;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Target { rows: number; base: string; middle: string; close(): Promise<void> }

async function serve(rows: number): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-console-'));
  const path = join(dir, 'svc.db');
  const store = await openSqliteStore({ path });
  const middle = fill(path, rows);
  const route = createUiRoute({ store, gate: createReadGate(DEFAULT_READS_AT_ONCE), watermark: createChainWatermark(store, systemClock),
    oncall: { configs: () => [], overrides: () => Promise.resolve([]), clock: systemClock }, snapshot: () => SNAPSHOT, agents: () => ['agent-0'], logPath: () => join(dir, 'agent-0.log'), jsonLinks: true, report: () => undefined });
  const server = createServer((req, res) => {
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    void route({ req, res, url: new URL(req.url ?? '/', 'http://127.0.0.1'), signal: ac.signal, principal: { expiresAtMs: null } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    rows, middle, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const SHAPES: Array<{ name: string; path: (t: Target) => string; expect: string }> = [
  { name: 'events', path: () => '/ui/events', expect: '<tbody>' },
  { name: 'events-filtered', path: () => '/ui/events?agent=agent-3', expect: '<tbody>' },
  { name: 'events-middle', path: (t) => `/ui/events?cursor=${encodeCursor({ key: Math.floor(t.rows / 2), order: 'desc' })}`, expect: '<tbody>' },
  { name: 'event', path: (t) => `/ui/events/${t.middle}`, expect: 'role="status">Verified:' },
  { name: 'dlq', path: () => '/ui/dlq', expect: '<tbody>' },
];

async function time(url: string, expect: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200 || !body.includes(expect)) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t;
}

if (SECTION === 'all' || SECTION === 'events') {
  const targets = [await serve(SIZES[0]!), await serve(SIZES[1]!)] as [Target, Target];
  const p50: [Record<string, number>, Record<string, number>] = [{}, {}];
  const proxySamples: number[] = [];
  try {
    for (const shape of SHAPES) {
      const times: [number[], number[]] = [[], []];
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        for (const [k, t] of targets.entries()) {
          const ms = await time(t.base + shape.path(t), shape.expect);
          if (i >= WARMUP) times[k as 0 | 1].push(ms);
        }
      }
      p50[0][shape.name] = median(times[0]);
      p50[1][shape.name] = median(times[1]);
    }
    // The first view through the proxy: the one-time link (session cookie, redirect) and /ui/, at 1M.
    for (let i = 0; i < 20; i++) {
      const proxy = await startConsoleProxy({ port: 0, upstreams: [{ name: 'local', base: targets[1].base, tokens: null, adminSocket: null }],
        fleet: false, oidc: null, localIdentity: 'local:bench', actingAs: null, admin: () => Promise.resolve(null), clock: systemClock, report: () => undefined });
      const t = performance.now();
      const login = await fetch(proxy.link, { redirect: 'manual' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const first = await fetch(`http://127.0.0.1:${proxy.port}${login.headers.get('location') ?? ''}`, { headers: { cookie } });
      if (first.status !== 200 || !(await first.text()).includes('<h1>Now</h1>')) throw new Error(`proxy first view: ${first.status}`);
      proxySamples.push(performance.now() - t);
      await proxy.close();
    }
  } finally {
    for (const t of targets) await t.close();
  }

  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  const proxyFirstViewMs = median(proxySamples);
  const assetBytes = [...ASSETS.values()].reduce((n, a) => n + a.body.length, 0);
  const ratios = Object.fromEntries(SHAPES.map((s) => [s.name, Number((p50[1][s.name]! / p50[0][s.name]!).toFixed(2))]));
  console.log(JSON.stringify({
    bench: 'console-views', sizes: SIZES, requestsPerShape: REQUESTS,
    p50Ms: { [SIZES[0]!]: Object.fromEntries(Object.entries(p50[0]).map(([k, v]) => [k, r3(v)])),
      [SIZES[1]!]: Object.fromEntries(Object.entries(p50[1]).map(([k, v]) => [k, r3(v)])) },
    ratio1Mto1k: ratios, proxyFirstViewMs: r3(proxyFirstViewMs), assetBytes,
  }));
  console.log(`console views (median of ${REQUESTS}, sizes interleaved): `
    + SHAPES.map((s) => `${s.name} ${p50[0][s.name]!.toFixed(2)} ms @1k vs ${p50[1][s.name]!.toFixed(2)} ms @1M (x${ratios[s.name]})`).join('; ')
    + `; first view through svc console ${proxyFirstViewMs.toFixed(1)} ms; assets ${assetBytes} bytes`);
}
if (SECTION === 'all' || SECTION === 'pages') await pagesSection({ sizes: [10, 10_000], seconds: 8, rounds: 3 });
if (SECTION === 'all' || SECTION === 'team') await teamSection({ sessions: 50, seconds: 5, rounds: 12 });
