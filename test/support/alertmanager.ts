/**
 * A real Alertmanager (Debian `prometheus-alertmanager`, installed by .ci/run) on loopback, for the
 * end-to-end path from an alert to a page: a temporary storage path, no cluster gossip, and a test copy
 * of the `alertmanager.yml` that `svc init` wrote with only the timings (and, when asked, the URL) made
 * short enough for a test.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './http.js';
import { waitFor } from './wait.js';

export const ALERTMANAGER_BIN = '/usr/bin/prometheus-alertmanager';
export const AMTOOL_BIN = '/usr/bin/amtool';

export function alertmanagerInstalled(): boolean {
  return existsSync(ALERTMANAGER_BIN) && existsSync(AMTOOL_BIN);
}

export interface RunningAlertmanager {
  url: string;
  /** What Alertmanager printed, for failure messages. */
  output(): string;
  /** Posts alerts to its v2 API. */
  postAlerts(alerts: Array<{ labels: Record<string, string>; annotations?: Record<string, string>; startsAt?: string; endsAt?: string }>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `config` is the text of the generated alertmanager.yml; `timings` replace its group_wait,
 * group_interval and repeat_interval; `url` (optional) replaces the receiver's URL (a test proxy).
 */
export async function startAlertmanager(config: string,
  opts: { timings: { groupWait: string; groupInterval: string; repeatInterval: string }; url?: string }): Promise<RunningAlertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-am-'));
  let text = config
    .replace(/group_wait: \S+/, `group_wait: ${opts.timings.groupWait}`)
    .replace(/group_interval: \S+/, `group_interval: ${opts.timings.groupInterval}`)
    .replace(/repeat_interval: \S+/, `repeat_interval: ${opts.timings.repeatInterval}`);
  if (opts.url !== undefined) text = text.replace(/url: \S+/, `url: ${opts.url}`);
  const file = join(dir, 'alertmanager.yml');
  writeFileSync(file, text);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(ALERTMANAGER_BIN, [`--config.file=${file}`, `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=debug'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor('alertmanager ready', async () => {
      if (child.exitCode !== null) throw new Error(`alertmanager exited: ${output}`);
      return fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    });
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    output: () => output,
    async postAlerts(alerts) {
      const res = await fetch(`${url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
      if (!res.ok) throw new Error(`alertmanager refused the alerts: ${res.status} ${await res.text()}`);
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `amtool check-config FILE`: exit code and output. */
export function amtoolCheckConfig(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(AMTOOL_BIN, ['check-config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('close', (code) => resolve({ code, output }));
  });
}

export function readConfig(dir: string): string {
  return readFileSync(join(dir, 'alertmanager.yml'), 'utf8');
}
