/**
 * Pushover receipt polling at 1,000 open emergency pages (contract §21.3; issue 34's measure: within
 * Pushover's limits — no receipt asked about more often than every 5 s — every receipt at least every
 * 30 s, and at most 5 % of a core). One real daemon (SQLite, the rules provider, a file channel and a
 * Pushover channel pointed at the local Pushover API of test/support/fake-pushover.ts, run in this
 * process) and, same run:
 *
 *   1. idle: the daemon up, nothing open, for IDLE_S seconds — its CPU from /proc/<pid>/stat (every
 *      thread: the store's writer and reader too);
 *   2. 1,000 P1 alerts, each its own Alertmanager group: 1,000 pages, 1,000 emergency messages,
 *      1,000 receipts kept with their pages;
 *   3. loaded: LOADED_S seconds of the leader asking about all of them; its CPU, and every ask as the
 *      fake API saw it — the gaps between two asks about one receipt (shortest, median, longest), and
 *      asks per second. This process's own CPU over the window shows the fake API was not what held
 *      the asks back.
 *
 * First, on its own, what one ask costs the client: 2,000 GETs of a receipt-sized answer from a bare
 * server in another process, each on a connection of its own (http-client.ts without agents, what
 * every channel's messages use; `fetch` until 2026-11-29) and through the kept-alive agents the receipt
 * asks use (keep-alive-client.ts) — this process's CPU per request, same run.
 *
 *   npm run build && node --import tsx bench/pushover-receipts.ts [receipts=1000] [loadedSeconds=120] [idleSeconds=60]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { systemClock } from '../src/core/clock.js';
import { signBody } from '../src/ingest/signature.js';
import { httpRequest } from '../src/runtime/channels/http-client.js';
import { createKeepAliveClient } from '../src/runtime/channels/keep-alive-client.js';
import { startFakePushover } from '../test/support/fake-pushover.js';
import { aliceOnlyYaml, alertInGroup } from '../test/support/oncall-yaml.js';
import { bareServer, benchDaemon, r3 } from './lib/daemon.js';
import { percentile } from './lib/oncall.js';

const N = Number(process.argv[2] ?? 1000);
const LOADED_S = Number(process.argv[3] ?? 120);
const IDLE_S = Number(process.argv[4] ?? 60);
const TOKEN = 'aBenchPushoverToken00000000000';
const ALICE = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux
const note = (line: string): void => { process.stderr.write(`pushover-receipts: ${line}\n`); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** CPU seconds the process has used, user and system, every thread of it. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The share of one core `pid` used over `seconds` of wall time from now. */
async function coreShare(pid: number, seconds: number): Promise<number> {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  return (cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000);
}

/** This process's CPU per request, ms, for `count` sequential GETs through `get`. */
async function clientCost(count: number, get: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i += 1) await get(); // warm up: connections, JIT
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < count; i += 1) await get();
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / count;
}

const receiptAnswer = JSON.stringify({ status: 1, acknowledged: 0, acknowledged_at: 0, acknowledged_by: '', acknowledged_by_device: '',
  last_delivered_at: 1764300000, expired: 0, expires_at: 1764310800, called_back: 0, called_back_at: 0, request: '5042853c-402d-4a18-abcb-168734a801de' });
const bare = await bareServer('json', receiptAnswer);
const signal = new AbortController().signal;
const askUrl = `${bare.url}/1/receipts/r1.json?token=x`;
const keepAlive = createKeepAliveClient({ maxSockets: 2, timeoutMs: 10_000, maxBodyBytes: 16_384, clock: systemClock });
const costs = { oneShot: [] as number[], keepAlive: [] as number[] };
for (let round = 0; round < 2; round += 1) {
  costs.oneShot.push(await clientCost(2000, () => httpRequest(askUrl, { method: 'GET' }, { headers: {}, timeoutMs: 10_000, signal, maxBodyBytes: 16_384, clock: systemClock })));
  costs.keepAlive.push(await clientCost(2000, () => keepAlive.request(askUrl, { method: 'GET' }, signal)));
}
keepAlive.close();
await bare.stop();
const askCost = { oneShotMs: r3(Math.min(...costs.oneShot)), keepAliveMs: r3(Math.min(...costs.keepAlive)) };
note(`one ask's client CPU: a connection each ${askCost.oneShotMs} ms, kept-alive node:http ${askCost.keepAliveMs} ms (best of two rounds of 2,000)`);

const po = await startFakePushover({ token: TOKEN, users: [ALICE] });
const d = await benchDaemon({ channelsYaml: [
  'channels:',
  '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl }',
  `  - { id: pushover, type: pushover, direction: outbound, token: "\${env:PUSHOVER_TOKEN}", apiUrl: "${po.apiUrl}", retry: 60, expire: 10800 }`,
  '',
].join('\n') });
d.env.PUSHOVER_TOKEN = TOKEN;
writeFileSync(join(d.dir, 'oncall.yaml'), aliceOnlyYaml(`oncall-dm: alice, pushover: ${ALICE}`));
const fixture = readFileSync(join(d.dir, 'fixtures/mock-alert.json'), 'utf8');
const receiptsKept = (): number => {
  const db = new Database(join(d.home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM page_receipts').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

try {
  await d.start();
  const pid = d.pid();
  await sleep(5_000); // start-up work (config rows, the first refreshes) out of the idle figure
  note(`idle for ${IDLE_S} s`);
  const idle = await coreShare(pid, IDLE_S);

  note(`${N} P1 alerts, each its own group`);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < N) {
      const i = next++;
      const body = alertInGroup(fixture, `bench-${i}`);
      const res = await fetch(d.ingestUrl, { method: 'POST', body,
        headers: { 'Content-Type': 'application/json', 'X-Signature': signBody(d.secret, Buffer.from(body)) } });
      if (res.status !== 202) throw new Error(`alert ${i}: ${res.status}`);
    }
  }));
  for (let i = 0; receiptsKept() < N; i += 1) {
    if (i > 1200) throw new Error(`only ${receiptsKept()} of ${N} receipts kept after 2 minutes`);
    await sleep(100);
  }
  const emergencies = po.messages.filter((m) => m.status === 200 && m.form.priority === '2').length;
  note(`${emergencies} emergency messages sent, ${N} receipts kept; 35 s for the schedule to reach every receipt`);
  await sleep(35_000);

  const windowStart = Date.now();
  const pollsBefore = po.polls.length;
  const self0 = process.cpuUsage();
  const loaded = await coreShare(pid, LOADED_S);
  const self = process.cpuUsage(self0);
  const windowEnd = Date.now();
  const watched = await d.metric('svc_pushover_receipts_watched');

  const inWindow = po.polls.slice(pollsBefore).filter((p) => p.atMs >= windowStart && p.atMs <= windowEnd);
  const byReceipt = new Map<string, number[]>();
  for (const p of po.polls) {
    const times = byReceipt.get(p.receipt) ?? [];
    times.push(p.atMs);
    byReceipt.set(p.receipt, times);
  }
  // Gaps between consecutive asks about one receipt, over the whole run (the floor holds from the first ask on).
  const gaps = [...byReceipt.values()].flatMap((t) => t.slice(1).map((at, i) => at - (t[i] as number)));
  // Gaps inside the measured window only (the ceiling is about a steady schedule).
  const steady = [...byReceipt.values()].flatMap((t) => {
    const w = t.filter((at) => at >= windowStart && at <= windowEnd);
    return w.slice(1).map((at, i) => at - (w[i] as number));
  });
  const askedInWindow = new Set(inWindow.map((p) => p.receipt)).size;
  const result = {
    bench: 'pushover-receipts', askCpuMsOneShot: askCost.oneShotMs, askCpuMsKeepAlive: askCost.keepAliveMs,
    keepAliveToOneShot: r3(askCost.keepAliveMs / askCost.oneShotMs), receipts: N, receiptsWatched: watched, emergencyMessages: emergencies,
    loadedSeconds: LOADED_S, idleSeconds: IDLE_S,
    daemonCpuIdle: r3(idle), daemonCpuLoaded: r3(loaded), daemonCpuAdded: r3(loaded - idle), loadedToIdle: r3(loaded / idle),
    asksPerSecond: r3(inWindow.length / ((windowEnd - windowStart) / 1000)), receiptsAskedInWindow: askedInWindow,
    gapMsShortest: Math.min(...gaps), gapMsP50: percentile(steady, 50), gapMsP99: percentile(steady, 99), gapMsLongest: Math.max(...steady),
    failedAsks: inWindow.filter((p) => p.status !== 200).length,
    benchProcessCpu: r3((self.user + self.system) / 1e6 / ((windowEnd - windowStart) / 1000)),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`pushover-receipts: ${N} open emergency pages, ${result.asksPerSecond} asks/s; each receipt asked every `
    + `${r3(result.gapMsP50 / 1000)} s (p50; shortest gap ${r3(result.gapMsShortest / 1000)} s, target ≥ 5; longest ${r3(result.gapMsLongest / 1000)} s, target ≤ 30); `
    + `daemon CPU ${r3(loaded * 100)} % of a core vs ${r3(idle * 100)} % idle (added ${r3((loaded - idle) * 100)} %, target ≤ 5 %); `
    + `the fake API's process ${r3(result.benchProcessCpu * 100)} % of a core; one ask's client CPU ${askCost.keepAliveMs} ms kept-alive vs `
    + `${askCost.oneShotMs} ms on a connection each (${result.keepAliveToOneShot}×)\n`);
  // The cost is what the receipts add to the idle daemon (the same daemon, the same run).
  const ok = result.gapMsShortest >= 5_000 && result.gapMsLongest <= 30_000 && loaded - idle <= 0.05 && askedInWindow === N
    && result.failedAsks === 0;
  if (!ok) process.exitCode = 1;
} finally {
  await d.stop();
  d.cleanup();
  await po.close();
}
