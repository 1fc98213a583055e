/**
 * `svc down` against a real process standing in for the daemon (a node script whose command line is
 * `…/svc-daemon/main.js up`, as svc's is): it says `stopped` only once the pid is gone, and otherwise
 * that svc is still running, exit 1. The 60 s wait runs on fake time; the process is real.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { homePaths } from '../config/paths.js';
import { cliHarness } from '../../test/support/cli.js';
import { advanceUntil, waitFor } from '../../test/support/wait.js';
import { downCommand, STOP_TIMEOUT_MS } from './down.js';
import { processAlive, writeState } from './daemon-files.js';

const root = mkdtempSync(join(tmpdir(), 'svc-down-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** A process that ignores SIGTERM (a daemon whose drain does not end) until the test kills it. */
async function stubbornDaemon(): Promise<ChildProcess & { pid: number }> {
  const dir = join(root, 'svc-daemon');
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'main.js');
  writeFileSync(script, "process.on('SIGTERM', () => console.log('term')); console.log('ready'); setInterval(() => {}, 1000);\n");
  const child = spawn(process.execPath, [script, 'up'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  await waitFor('the stand-in daemon ready', () => out.includes('ready'));
  return child as ChildProcess & { pid: number };
}

function home(name: string): { env: NodeJS.ProcessEnv; paths: ReturnType<typeof homePaths> } {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return { env: { SVC_HOME: dir }, paths: homePaths(dir) };
}

const state = (pid: number, s: 'running' | 'stopping') => ({ pid, state: s, startedAt: '2026-01-01T00:00:00.000Z', agents: [], ingest: [], controlPlane: null });

describe('svc down', () => {
  it('a daemon that does not exit: never "stopped"; after the timeout it says svc is still running, exit 1', async () => {
    const daemon = await stubbornDaemon();
    const { env, paths } = home('stuck');
    writeFileSync(paths.pidFile, `${daemon.pid}\n`);
    const clock = fakeClock();
    const h = cliHarness(env, root, clock);
    let code: number | null = null;
    void downCommand(h.ctx).then((c) => { code = c; });
    await advanceUntil(clock, 'svc down gave up', () => code !== null, 1_000, 30_000);
    assert.equal(code, 1);
    assert.ok(processAlive(daemon.pid), 'the stand-in still runs');
    assert.equal(h.out(), '');
    assert.equal(h.err(), `svc down: svc is still running (pid ${daemon.pid}): it did not exit within ${STOP_TIMEOUT_MS / 1000} s; see ${paths.upLog}\n`);
  });

  it('a daemon that released its pid file but has not exited yet is waited for, not called "not running"', async () => {
    const daemon = await stubbornDaemon();
    const { env, paths } = home('exiting');
    writeState(paths.stateFile, state(daemon.pid, 'stopping')); // no pid file: released, the process still there
    const clock = fakeClock();
    const h = cliHarness(env, root, clock);
    let code: number | null = null;
    void downCommand(h.ctx).then((c) => { code = c; });
    await clock.advanceAsync(5_000);
    assert.equal(code, null, 'still waiting while the process runs');
    assert.equal(h.out(), `svc down: svc is already stopping (pid ${daemon.pid}); waiting for it to exit\n`);
    daemon.kill('SIGKILL');
    await advanceUntil(clock, 'svc down saw it gone', () => code !== null);
    assert.equal(code, 0);
    assert.ok(!processAlive(daemon.pid));
    assert.equal(h.out(), `svc down: svc is already stopping (pid ${daemon.pid}); waiting for it to exit\nsvc down: stopped (pid ${daemon.pid})\n`);
  });

  it('nothing running, or a state file whose pid is gone: "not running"', async () => {
    const { env, paths } = home('gone');
    const h = cliHarness(env, root, fakeClock());
    assert.equal(await downCommand(h.ctx), 0);
    writeState(paths.stateFile, state(2_147_483_000, 'stopping'));
    assert.equal(await downCommand(h.ctx), 0);
    assert.equal(h.out(), 'svc down: svc is not running\nsvc down: svc is not running\n');
  });
});
