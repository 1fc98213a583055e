/**
 * `$SVC_HOME/up.pid` and `$SVC_HOME/up-state.json`: who runs, and in which state. The pid file is
 * created exclusively, so two `svc up` cannot both believe they own the home; a pid file left by a
 * killed daemon is recognised (no such process, or not an svc process) and replaced.
 */
import { mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, closeSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { RuntimeError } from '../core/errors.js';

/** A listener of a source that answers people (ack links, Slack clicks): who it is, and its base URL. */
export interface AnswerListener { who: string; url: string }

export interface UpState {
  pid: number;
  state: 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';
  startedAt: string;
  agents: string[];
  ingest: string[];
  /** The ack and Slack sources' listeners (absent in files of an older svc). */
  answers?: AnswerListener[];
  /** Base URL of the control-plane listener, null when disabled. */
  controlPlane: string | null;
  error?: string;
}

/** pid of a live svc daemon recorded in the pid file, or null. */
export function runningPid(pidFile: string): number | null {
  let text: string;
  try {
    text = readFileSync(pidFile, 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return svcProcessAlive(pid) ? pid : null;
}

/**
 * Whether `pid` is a running process. A zombie (killed, not yet reaped by its parent — in containers
 * PID 1 may reap late) answers signal 0 but runs nothing, so it counts as gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive but not ours to signal.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3, after the parenthesised command name, is the state letter.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: trust the signal check
  }
}

/** Whether `pid` runs and is an svc process (a recycled pid belongs to some other program). */
export function svcProcessAlive(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    // A recycled pid belongs to some other program: the file is stale.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /svc|main\.js|main\.ts/.test(cmdline);
  } catch {
    return true; // no /proc: trust the signal check
  }
}

/** Takes the pid file for `pid`, replacing a stale one. Throws when a live daemon holds it. */
export function acquirePidFile(pidFile: string, pid: number): void {
  mkdirSync(dirname(pidFile), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(pidFile, 'wx', 0o644);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = runningPid(pidFile);
      if (other !== null && other !== pid) {
        throw new RuntimeError('EALREADYRUNNING', `svc is already running (pid ${other}); stop it with \`svc down\` first`);
      }
      rmSync(pidFile, { force: true }); // stale: its process is gone
    }
  }
  throw new RuntimeError('EPIDFILE', `could not take ${pidFile}`);
}

export function releasePidFile(pidFile: string, pid: number): void {
  try {
    if (readFileSync(pidFile, 'utf8').trim() === String(pid)) rmSync(pidFile, { force: true });
  } catch {
    // already gone
  }
}

/** up-state.json as written by writeState, or null when it is absent or not one (a pid and a state at least). */
export function readState(stateFile: string): UpState | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return null;
  }
  const v = value as Partial<UpState> | null;
  if (typeof v !== 'object' || v === null || !Number.isSafeInteger(v.pid) || (v.pid ?? 0) <= 0 || typeof v.state !== 'string') return null;
  return v as UpState;
}

export function writeState(stateFile: string, state: UpState): void {
  const tmp = `${stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o644 });
  renameSync(tmp, stateFile);
}
