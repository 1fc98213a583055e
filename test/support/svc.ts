/** The built `svc` CLI in black-box tests: run it, give it a fresh home, scaffold an agent with it. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processAlive } from '../../src/cli/daemon-files.js';
import { freePort } from './http.js';

export const SVC_BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** With `measureRss`: the CLI's peak resident set (process.resourceUsage().maxRSS, KiB). */
  maxRssKiB?: number;
}

/** Writes the process's peak RSS (KiB) on fd 3 as it exits. */
const RSS_PRELOAD = 'data:text/javascript,' + encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => { try { writeSync(3, String(process.resourceUsage().maxRSS)); } catch {} });");

/** Runs `node dist/main.js ...args` to completion. */
export function runSvc(args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string; timeoutMs?: number;
  /** Runs it under `ulimit -n <openFiles>` (a daemon started with `up -d` keeps the limit). */
  openFiles?: number;
  /** Also report the CLI's peak RSS (a preload writes it on a fourth pipe as the process exits). */
  measureRss?: boolean }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, ...(opts.measureRss ? ['--import', RSS_PRELOAD] : []), SVC_BIN, ...args];
    const child = opts.openFiles === undefined
      ? spawn(argv[0] as string, argv.slice(1), { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
      : spawn('/bin/sh', ['-c', `ulimit -n ${opts.openFiles} && exec "$@"`, 'sh', ...argv], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    let rss = '';
    (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', (d: Buffer) => { rss += d.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`svc ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    // Wait for 'close' (not 'exit') so stdout/stderr are complete.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...(rss !== '' ? { maxRssKiB: Number(rss) } : {}) });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export interface SpawnedSvc {
  stdout(): string;
  stderr(): string;
  /** Sends `signal` (default SIGINT) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<RunResult>;
}

/** Starts `node dist/main.js ...args` and leaves it running (svc logs -f, svc fleet logs -f). */
export function spawnSvc(args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): SpawnedSvc {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async (signal = 'SIGINT') => {
      child.kill(signal);
      const code = await closed;
      return { code, stdout, stderr };
    },
  };
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

/** Replaces the template's fixed ingest port with `port` in DIR/event-sources.yaml. */
export function setIngestPort(dir: string, port: number): void {
  const file = join(dir, 'event-sources.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('port: 8787', `port: ${port}`));
}

export function readSecretFile(home: string, path: string): string {
  return readFileSync(join(home, 'secrets', path), 'utf8').trim();
}

/** A running process (a zombie awaiting its reaper counts as gone). */
export function pidAlive(pid: number): boolean {
  return processAlive(pid);
}

/** The 1-based line of the first line of `file` that contains `needle` (for asserting file:line in errors). */
export function lineOf(file: string, needle: string): number {
  const index = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`${needle} not in ${file}`);
  return index + 1;
}

/** Replaces the first `from` in `file` with `to`; `from` must be there. */
export function editFile(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${from} not in ${file}`);
  writeFileSync(file, text.replace(from, to));
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

/**
 * `id`: the agent id (`svc init --id`); agent ids are unique per $SVC_HOME, so a second agent in one
 * home needs its own. Its secrets are then under `<id>/` instead of `alert-escalation/`.
 */
export async function scaffoldAgent(t: { home: string; work: string; env: NodeJS.ProcessEnv }, name = 'agent',
  provider: 'rules' | 'anthropic' | 'openai' = 'rules', id?: string): Promise<ScaffoldedAgent> {
  const dir = join(t.work, name);
  mkdirSync(t.work, { recursive: true });
  const init = await runSvc(['init', '--template', 'alert-escalation', '--provider', provider, ...(id ? ['--id', id] : []), dir],
    { env: t.env, cwd: t.work });
  if (init.code !== 0) throw new Error(`svc init failed: ${init.stderr}`);
  const port = await freePort();
  setIngestPort(dir, port);
  const cpPort = await freePort();
  return { dir, url: `http://127.0.0.1:${port}/webhooks/alertmanager`, cpPort, cp: `http://127.0.0.1:${cpPort}`,
    secret: readSecretFile(t.home, `${id === undefined || id === 'oncall-escalator' ? 'alert-escalation' : id}/webhook-hmac`), fixture: readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8') };
}
