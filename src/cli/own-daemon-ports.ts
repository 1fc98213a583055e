/**
 * The ports the svc already running in this `$SVC_HOME` holds, so that `svc check` before a restart
 * (systemd's ExecStartPre, an operator's `nginx -t`-style check) does not call its own daemon's
 * listeners a conflict. Only when that daemon is provably the same deployment: the pid file names a
 * live svc, its up-state says `running` under that pid, and it runs exactly the agents being checked.
 * Anything else holding a port is still a problem.
 */
import { readFileSync } from 'node:fs';
import type { HomePaths } from '../config/paths.js';
import type { AnswerListener, UpState } from './daemon-files.js';
import { runningPid } from './daemon-files.js';

export interface OwnDaemon {
  pid: number;
  /**
   * Port numbers of every listener it holds. By number, not address: up-state records dialable URLs
   * (a source bound to 0.0.0.0 shows as 127.0.0.1), and a restart frees the port on every address.
   */
  ports: Set<number>;
}

export function ownDaemonPorts(paths: HomePaths, agentIds: readonly string[]): OwnDaemon | null {
  const pid = runningPid(paths.pidFile);
  if (pid === null) return null;
  let state: Partial<UpState>;
  try {
    state = JSON.parse(readFileSync(paths.stateFile, 'utf8')) as Partial<UpState>;
  } catch {
    return null;
  }
  if (state.state !== 'running' || state.pid !== pid || !Array.isArray(state.agents) || !Array.isArray(state.ingest)) return null;
  if ([...state.agents].sort().join('\n') !== [...agentIds].sort().join('\n')) return null;
  const ports = new Set<number>();
  const answers = Array.isArray(state.answers) ? state.answers.map((a) => (a as Partial<AnswerListener> | null)?.url) : [];
  for (const url of [...state.ingest, ...answers, ...(typeof state.controlPlane === 'string' ? [state.controlPlane] : [])]) {
    try {
      const u = new URL(String(url));
      ports.add(Number(u.port === '' ? (u.protocol === 'https:' ? '443' : '80') : u.port));
    } catch {
      // not a URL: nothing this daemon can be shown to hold
    }
  }
  return { pid, ports };
}
