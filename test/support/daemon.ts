/**
 * A real daemon for black-box tests: the alert-escalation agent scaffolded by `svc init`, started with
 * `svc up -d` in its own SVC_HOME on free ingest and control-plane ports, optionally behind
 * `controlPlane.auth`. `stop()` runs `svc down` and removes its directories.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './svc.js';
import type { ScaffoldedAgent } from './svc.js';

export interface DaemonOptions {
  /** `controlPlane.auth` keys (enabled: true is implied). */
  auth?: Record<string, unknown>;
  /** Secrets stored with `svc secret set` before the daemon starts: path → value. */
  secrets?: Record<string, string>;
  /** More YAML appended to agent.yaml. */
  agentYaml?: string;
  /** channels.yaml, in place of the template's file channel. */
  channelsYaml?: string;
  /** The daemon runs under `ulimit -n <openFiles>`. */
  openFiles?: number;
  /** More environment for the daemon (e.g. `SVC_DATABASE_URL`). */
  env?: NodeJS.ProcessEnv;
  /** More files in the agent directory before it starts (e.g. `oncall.yaml`): name → text. */
  files?: Record<string, string>;
  /** More sources appended to event-sources.yaml (list items, e.g. an ack source). */
  sourcesYaml?: string;
  /** More arguments of `svc up -d` (e.g. `--shadow`). */
  upArgs?: string[];
}

export interface Daemon extends ScaffoldedAgent {
  home: string;
  env: NodeJS.ProcessEnv;
  /** The agent's log file, `$SVC_HOME/logs/oncall-escalator.log`. */
  logFile: string;
  /** The daemon's pid, from $SVC_HOME/up.pid. */
  pid(): number;
  stop(): Promise<void>;
}

export async function startDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const t = tempEnv();
  const agent = await scaffoldAgent(t);
  const lines = ['controlPlane:', '  bind: 127.0.0.1', `  port: ${agent.cpPort}`];
  if (opts.auth) {
    lines.push('  auth:', ...Object.entries({ enabled: true, ...opts.auth }).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`));
  }
  appendAgentYaml(agent.dir, [...lines, opts.agentYaml ?? ''].join('\n'));
  if (opts.channelsYaml !== undefined) writeFileSync(join(agent.dir, 'channels.yaml'), opts.channelsYaml);
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(join(agent.dir, name), text);
  if (opts.sourcesYaml !== undefined) appendFileSync(join(agent.dir, 'event-sources.yaml'), `\n${opts.sourcesYaml}\n`);
  // The port comes from agent.yaml; tempEnv's SVC_METRICS_PORT=0 would disable the listener.
  const env: NodeJS.ProcessEnv = { ...t.env, ...opts.env, SVC_METRICS_PORT: '' };
  for (const [path, value] of Object.entries(opts.secrets ?? {})) {
    const r = await runSvc(['secret', 'set', path], { env, cwd: agent.dir, input: value });
    if (r.code !== 0) throw new Error(`svc secret set ${path} failed: ${r.stderr}`);
  }
  const up = await runSvc(['up', '-d', ...(opts.upArgs ?? [])], { env, cwd: agent.dir, ...(opts.openFiles === undefined ? {} : { openFiles: opts.openFiles }) });
  if (up.code !== 0) {
    t.cleanup();
    throw new Error(`svc up -d failed: ${up.stderr}${up.stdout}`);
  }
  return {
    ...agent, home: t.home, env, logFile: join(t.home, 'logs', 'oncall-escalator.log'),
    pid: () => Number(readFileSync(join(t.home, 'up.pid'), 'utf8')),
    stop: async () => {
      await runSvc(['down'], { env, cwd: agent.dir });
      t.cleanup();
    },
  };
}
