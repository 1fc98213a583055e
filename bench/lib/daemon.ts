/**
 * A real daemon for the benches: `svc init` then `svc up` (the built CLI, foreground) in a process of
 * its own with a fresh $SVC_HOME, and the bare baseline servers, also in their own processes.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { signBody } from '../../src/ingest/signature.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI; SVC_BENCH_ROOT points a bench at another checkout (a "before" figure). */
const SVC = join(process.env.SVC_BENCH_ROOT ?? ROOT, 'dist/main.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface BenchDaemon {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  ingestUrl: string;
  cp: string;
  secret: string;
  pid: () => number;
  /** Starts `svc up`; resolves once /status answers. */
  start(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** One sample of a family from /metrics, summed over its series. */
  metric(name: string): Promise<number>;
  /** Resident set size of the daemon process, bytes (from /proc). */
  rss(): number;
  cleanup(): void;
}

/** An alert-escalation agent with the file channel, on free ports; `agentYaml` is appended to agent.yaml. */
export async function benchDaemon(opts: { agentYaml?: string; channelsYaml?: string; nodeArgs?: string[] } = {}): Promise<BenchDaemon> {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const home = join(root, 'home');
  const dir = join(root, 'agent');
  const cpPort = await freePort();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: root, SVC_HOME: home, NO_COLOR: '1', SVC_METRICS_PORT: String(cpPort) };
  execFileSync(process.execPath, [SVC, 'init', '--template', 'alert-escalation', '--provider', 'rules', dir], { env, stdio: 'ignore' });
  const sources = join(dir, 'event-sources.yaml');
  writeFileSync(sources, readFileSync(sources, 'utf8').replace('port: 8787', `port: ${port}`));
  if (opts.agentYaml) writeFileSync(join(dir, 'agent.yaml'), `${readFileSync(join(dir, 'agent.yaml'), 'utf8')}\n${opts.agentYaml}\n`);
  if (opts.channelsYaml) writeFileSync(join(dir, 'channels.yaml'), opts.channelsYaml);
  const secret = readFileSync(join(home, 'secrets', 'alert-escalation', 'webhook-hmac'), 'utf8').trim();
  const cp = `http://127.0.0.1:${cpPort}`;
  let child: ChildProcess | null = null;

  return {
    dir, home, env, secret, cp, ingestUrl: `http://127.0.0.1:${port}/webhooks/alertmanager`,
    pid: () => child?.pid ?? 0,
    async start() {
      // BENCH_NODE_ARGS: node flags for every daemon a bench starts (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
      const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
      child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...extra, SVC, 'up', dir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      for (let i = 0; i < 600; i++) {
        try {
          if ((await fetch(`${cp}/status`)).ok) return;
        } catch { /* not yet */ }
        await sleep(50);
      }
      throw new Error('daemon did not start');
    },
    async stop() {
      const c = child;
      if (c === null || c.exitCode !== null) return;
      await new Promise<void>((resolve) => { c.once('exit', () => resolve()); c.kill('SIGTERM'); });
      child = null;
    },
    async metric(name) {
      const text = await (await fetch(`${cp}/metrics`)).text();
      let sum = 0;
      for (const line of text.split('\n')) {
        const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/.exec(line);
        if (m && m[1] === name) sum += Number(m[3]);
      }
      return sum;
    },
    rss() {
      const status = readFileSync(`/proc/${child?.pid ?? 0}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      return kb * 1024;
    },
    cleanup() { rmSync(root, { recursive: true, force: true }); },
  };
}

/** A bare baseline server in its own process (bench/lib/bare-server.mjs). */
export async function bareServer(mode: 'post' | 'json', doc?: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'bench/lib/bare-server.mjs'), mode, ...(doc ? [doc] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => { child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))); });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }),
  };
}

/**
 * The template's mock alert signed with `secret`: one body, sent again and again, each a new event: no
 * fingerprint header, and no `groupKey` (an Alertmanager body with one gets a derived fingerprint,
 * contract §12.2, and its repeats would be duplicates).
 */
export function signedAlert(dir: string, secret: string): { body: string; headers: Record<string, string> } {
  const { groupKey: _groupKey, ...alert } = JSON.parse(readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8')) as Record<string, unknown>;
  const body = JSON.stringify(alert, null, 2);
  return { body, headers: { 'Content-Type': 'application/json', 'X-Signature': signBody(secret, Buffer.from(body)) } };
}

export const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Writes `n` events of the agent's signed mock alert straight into the (stopped) daemon's store, in
 * transactions of 100,000: `accepted` (waiting) or `processed` (history). The schema is created first.
 * The ids are random (version 4) UUIDs, as the stores made them before store/record-id.ts: the hard
 * case, a store upgraded with a deep backlog, and the one where a daemon that makes random ids scatters
 * its inserts over the whole id index (with time-ordered ids in the fill, such a daemon's ids would all
 * fall before or after them and the bench could not tell it from one that appends).
 */
export async function fillEvents(d: BenchDaemon, n: number, status: 'accepted' | 'processed'): Promise<void> {
  const path = join(d.home, 'svc.db');
  await (await openSqliteStore({ path })).close();
  const db = new Database(path);
  const { body } = signedAlert(d.dir, d.secret);
  const ins = db.prepare(`INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, attempt)
    VALUES (?, ?, 'oncall-escalator', 'alertmanager', 'alert', NULL, ?, ?, ?)`);
  const attempt = status === 'accepted' ? 0 : 1;
  const t0 = Date.now() - n;
  for (let done = 0; done < n; done += 100_000) {
    db.transaction(() => { for (let i = done; i < Math.min(n, done + 100_000); i++) ins.run(randomUUID(), t0 + i, status, body, attempt); })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
