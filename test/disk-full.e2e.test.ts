/**
 * A full disk (contract §11.6): the daemon's home and the on-call file live on a small tmpfs that is
 * then filled up. Every webhook gets 202 (stored) or 503 (nothing recorded), never a 500; once space
 * returns, every 202 is delivered without a restart. This test mounts a real tmpfs (root can, on the
 * CI machines); where mounting is refused it is skipped and says so.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { postAlert } from './support/http.js';
import { readJsonLines } from './support/store.js';
import { runSvc, scaffoldAgent } from './support/svc.js';
import { waitFor } from './support/wait.js';

function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes a file of zeros until the file system says ENOSPC; returns its path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return path;
}

describe('a full disk', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-disk-full-'));
  const mnt = join(root, 'mnt');
  mkdirSync(mnt);
  const mounted = mountTmpfs(mnt, '24m');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: mnt, SVC_HOME: join(mnt, 'home'), NO_COLOR: '1', SVC_METRICS_PORT: '0' };
  let dir = '';
  after(async () => {
    if (mounted) {
      await runSvc(['down'], { env, cwd: dir || root }).catch(() => undefined);
      try { execFileSync('umount', ['-l', mnt]); } catch { /* already gone */ }
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('answers 202 or 503, never 500, and delivers every 202 once space returns, without a restart', { skip: !mounted && 'cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN)' }, async (t) => {
    t.diagnostic('ran on a real tmpfs of 24 MiB');
    const agent = await scaffoldAgent({ home: env.SVC_HOME as string, work: join(mnt, 'work'), env });
    dir = agent.dir;
    // A short lease: a claim whose outcome could not be written is claimed again soon after.
    writeFileSync(join(dir, 'agent.yaml'), `${readFileSync(join(dir, 'agent.yaml'), 'utf8')}\nstore:\n  leaseMs: 2000\n`);
    const up = await runSvc(['up', '-d'], { env, cwd: dir });
    assert.equal(up.code, 0, up.stderr);
    const pid = readFileSync(join(env.SVC_HOME as string, 'up.pid'), 'utf8');
    const out = join(dir, 'out', 'oncall-dm.jsonl');
    const accepted = new Set<string>();
    const post = async (fp: string): Promise<number> => {
      const r = await postAlert(agent.url, agent.secret, agent.fixture, fp);
      if (r.status === 202) accepted.add(String(r.json?.eventId));
      return r.status;
    };
    for (let i = 0; i < 5; i++) assert.equal(await post(`before-${i}`), 202);
    await waitFor('the first alerts delivered', () => readJsonLines(out).length === 5);

    const filler = fill(mnt);
    const statuses = new Set<number>();
    for (let i = 0; i < 40; i++) statuses.add(await post(`full-${i}`));
    assert.ok([...statuses].every((s) => s === 202 || s === 503), `answers while full: ${[...statuses].join(', ')}`);
    assert.ok(statuses.has(503), 'the full disk was noticed');

    rmSync(filler);
    for (let i = 0; i < 5; i++) assert.equal(await post(`after-${i}`), 202);
    await waitFor('every accepted alert delivered', () => {
      const seen = new Set(readJsonLines(out).map((l) => String(l.eventId)));
      return [...accepted].every((id) => seen.has(id));
    }, 120_000);
    assert.equal(readFileSync(join(env.SVC_HOME as string, 'up.pid'), 'utf8'), pid, 'the same daemon, never restarted');
    const lines = readJsonLines(out);
    assert.equal(new Set(lines.map((l) => l.deliveryId)).size, lines.length, 'no line twice');
  });
});
