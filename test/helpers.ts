/** Black-box test helpers: run the built `svc` CLI, temp homes, free ports, signed requests, the store on disk. */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { AuditRow } from '../src/store/store.js';
import { processAlive } from '../src/cli/daemon-files.js';

export const SVC_BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/main.js ...args` to completion. */
export function runSvc(args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`svc ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    // Wait for 'close' (not 'exit') so stdout/stderr are complete.
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    child.stdin.end(opts.input ?? '');
  });
}

/** A fresh SVC_HOME and work directory, removed by `cleanup`. */
export function tempEnv(): { home: string; work: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  // SVC_METRICS_PORT=0: no control-plane listener unless a test asks for one on a free port.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: root, SVC_HOME: home, NO_COLOR: '1', SVC_METRICS_PORT: '0' };
  return { home, work, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Replaces the template's fixed ingest port with `port` in DIR/event-sources.yaml. */
export function setIngestPort(dir: string, port: number): void {
  const file = join(dir, 'event-sources.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('port: 8787', `port: ${port}`));
}

export function sign(secret: string, body: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

export function readSecretFile(home: string, path: string): string {
  return readFileSync(join(home, 'secrets', path), 'utf8').trim();
}

export async function postWebhook(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers }> {
  const res = await fetch(url, { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body });
  const text = await res.text();
  let json: Record<string, unknown> | null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Reads rows from the daemon's SQLite store (read-only; WAL lets it read while the daemon writes). */
export function queryStore<T>(home: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export function readJsonLines(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A running process (a zombie awaiting its reaper counts as gone). */
export function pidAlive(pid: number): boolean {
  return processAlive(pid);
}

/**
 * POSTs a large body with node:http and returns the status even when the server answers early and
 * closes the connection before the whole body was sent (as it should for 413).
 */
export async function postLarge(url: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    let status: number | null = null;
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => resolve(status as number));
    });
    req.on('error', (err) => (status === null ? reject(err) : resolve(status)));
    req.end(body);
  });
}

/** The audit chain as stored, in seq order. */
export function auditRows(home: string): AuditRow[] {
  type Raw = { seq: number; ts: string; kind: string; actor: string; agent_id: string | null; data: string; prev_hash: string; hash: string };
  return queryStore<Raw>(home, 'SELECT seq, ts, kind, actor, agent_id, data, prev_hash, hash FROM audit ORDER BY seq').map((r) => ({
    seq: r.seq, ts: r.ts, kind: r.kind, actor: r.actor, agentId: r.agent_id, data: JSON.parse(r.data) as Record<string, unknown>,
    prevHash: r.prev_hash, hash: r.hash,
  }));
}


/** The template's mock alert made unique by `fingerprint` (its alert fingerprint too), signed and posted. */
export function postAlert(url: string, secret: string, fixture: string, fingerprint: string): ReturnType<typeof postWebhook> {
  const body = fixture.replace('c3a1f0e29b7d4e55', fingerprint);
  return postWebhook(url, body, { 'x-signature': sign(secret, body), 'x-alert-fingerprint': fingerprint });
}

/** The value of one sample in a Prometheus text exposition (labels matched exactly), or undefined. */
export function metricValue(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',');
  for (const line of exposition.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")/g)].map((x) => x[1]).sort().join(',');
    if (have === want) return Number(m[3]);
  }
  return undefined;
}

/** Appends YAML to DIR/agent.yaml (the scaffold ends with comments, so top-level keys can follow). */
export function appendAgentYaml(dir: string, yaml: string): void {
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n${yaml}\n`);
}

/** An alert-escalation agent scaffolded by the real `svc init`, on free ingest and control-plane ports. */
export interface ScaffoldedAgent {
  dir: string;
  /** The webhook URL of the `alertmanager` source. */
  url: string;
  cpPort: number;
  /** `http://127.0.0.1:<cpPort>` */
  cp: string;
  /** The source's HMAC secret, as `svc init` created it. */
  secret: string;
  /** The template's mock alert, as text. */
  fixture: string;
}

export async function scaffoldAgent(t: { home: string; work: string; env: NodeJS.ProcessEnv }, name = 'agent'): Promise<ScaffoldedAgent> {
  const dir = join(t.work, name);
  mkdirSync(t.work, { recursive: true });
  const init = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', dir], { env: t.env, cwd: t.work });
  if (init.code !== 0) throw new Error(`svc init failed: ${init.stderr}`);
  const port = await freePort();
  setIngestPort(dir, port);
  const cpPort = await freePort();
  return { dir, url: `http://127.0.0.1:${port}/webhooks/alertmanager`, cpPort, cp: `http://127.0.0.1:${cpPort}`,
    secret: readSecretFile(t.home, 'alert-escalation/webhook-hmac'), fixture: readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8') };
}
