/**
 * The live store opened from outside, as an operator does (a look with the `sqlite3` shell, a
 * monitoring script, a cron `.backup`), against the built daemon (contract §11, §20.1):
 * - the daemon keeps its SQLite locks on svc.db, so an outside read-write client that closes never
 *   believes it is the last one, never checkpoints and unlinks the WAL, and every 202 survives a SIGKILL;
 * - `/audit?verify=1` and `svc audit --verify` judge the rows as they are when the request arrives: a row
 *   changed a moment earlier is seen changed, and seen intact again once restored.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { postAlert } from './support/http.js';
import { queryStore } from './support/store.js';
import { pidAlive, runSvc } from './support/svc.js';
import { waitFor } from './support/wait.js';

const exec = promisify(execFile);

/** The `sqlite3` shell on the live store, read-write (its default), waiting up to 5 s for a lock. */
async function sqlite3(d: Daemon, sql: string): Promise<string> {
  const { stdout } = await exec('sqlite3', ['-cmd', '.timeout 5000', join(d.home, 'svc.db'), sql]);
  return stdout.trim();
}

interface Verify { ok: boolean; checked: number; firstBadSeq: number | null; problem: string | null }
const verifyOverHttp = async (d: Daemon): Promise<Verify> => {
  const res = await fetch(`${d.cp}/audit?verify=1&limit=1`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { verify: Verify }).verify;
};
const verifyWithCli = async (d: Daemon): Promise<{ code: number | null; verify: Verify | null; stderr: string }> => {
  const r = await runSvc(['audit', '--verify', '--json', '--url', d.cp], { env: d.env, cwd: d.dir });
  return { code: r.code, verify: r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as { verify: Verify }).verify, stderr: r.stderr };
};

/** POSIX locks `pid` holds on the file at `path`, from /proc/locks (`maj:min:inode` names the file). */
function locksOf(pid: number, path: string): string[] {
  const inode = statSync(path).ino;
  return readFileSync('/proc/locks', 'utf8').split('\n').filter((line) => {
    const fields = line.trim().split(/\s+/);
    // "1: POSIX  ADVISORY  READ 1234 fe:00:2146546 128 128" (a blocked waiter's line has "->" in front)
    const at = fields.indexOf('POSIX');
    return at >= 0 && fields[at + 3] === String(pid) && fields[at + 4]?.split(':')[2] === String(inode);
  });
}

describe('an outside read-write open of the live store', () => {
  let d: Daemon;
  after(async () => { await d?.stop(); });

  it('loses nothing: the daemon keeps its locks, and every 202 and its audit rows survive a SIGKILL', async () => {
    d = await startDaemon();
    const accepted: string[] = [];
    const send = async (name: string): Promise<void> => {
      const r = await postAlert(d.url, d.secret, d.fixture, name);
      assert.equal(r.status, 202, `${name}: ${JSON.stringify(r.json)}`);
      accepted.push(String(r.json?.eventId));
    };
    for (let i = 0; i < 5; i++) await send(`before-${i}`);
    // Every connection the daemon opens has opened: the reader, and the verify workers.
    assert.equal((await verifyOverHttp(d)).ok, true);
    const pid = d.pid();
    const db = join(d.home, 'svc.db');
    assert.notDeepEqual(locksOf(pid, db), [], 'the daemon holds a lock on svc.db before the outside look');

    assert.equal(await sqlite3(d, 'SELECT count(*) FROM events'), '5');
    for (let i = 0; i < 20; i++) await send(`after-${i}`);
    assert.notDeepEqual(locksOf(pid, db), [], 'the daemon still holds its lock on svc.db');

    process.kill(pid, 'SIGKILL');
    await waitFor('the daemon gone', () => !pidAlive(pid));
    const up = await runSvc(['up', '-d'], { env: d.env, cwd: d.dir });
    assert.equal(up.code, 0, up.stderr);

    const stored = new Set(queryStore<{ id: string }>(d.home, 'SELECT id FROM events').map((r) => r.id));
    assert.deepEqual(accepted.filter((id) => !stored.has(id)), [], 'every acknowledged event is in the store');
    const acceptedRows = new Set(queryStore<{ id: string }>(d.home, "SELECT json_extract(data, '$.eventId') AS id FROM audit WHERE kind = 'event.accepted'")
      .map((r) => r.id));
    assert.deepEqual(accepted.filter((id) => !acceptedRows.has(id)), [], 'every acknowledged event has its event.accepted row');
    await waitFor('the control plane after the restart', () => fetch(`${d.cp}/healthz`).then((r) => r.ok, () => false));
    const verify = await verifyOverHttp(d);
    assert.equal(verify.ok, true);
    assert.ok(verify.checked >= 25, `${verify.checked} rows checked`);
  });
});

describe('verify after an outside change', () => {
  let d: Daemon;
  after(async () => { await d?.stop(); });

  it('judges the rows as they are when the request arrives: a changed row at once, the restored row at once', async () => {
    d = await startDaemon();
    for (let i = 0; queryStore<{ n: number }>(d.home, 'SELECT count(*) AS n FROM audit')[0]!.n < 150; i++) {
      assert.equal((await postAlert(d.url, d.secret, d.fixture, `alert-${i}`)).status, 202);
    }
    // Quiet: every event delivered, so the chain only grows from what this test does.
    await waitFor('every event processed', () =>
      queryStore<{ n: number }>(d.home, "SELECT count(*) AS n FROM events WHERE status IN ('accepted', 'processing')")[0]!.n === 0, 60_000);
    const first = await verifyOverHttp(d);
    assert.equal(first.ok, true);
    assert.equal((await verifyWithCli(d)).code, 0);

    const seq = 100;
    const original = await sqlite3(d, `SELECT data FROM audit WHERE seq = ${seq}`);
    await sqlite3(d, `UPDATE audit SET data = '{"tampered":true}' WHERE seq = ${seq}`);
    const changed = await verifyOverHttp(d);
    assert.deepEqual([changed.ok, changed.firstBadSeq, changed.problem], [false, seq, 'hash-mismatch']);
    const cli = await verifyWithCli(d);
    assert.equal(cli.code, 1, cli.stderr);
    assert.deepEqual([cli.verify?.ok, cli.verify?.firstBadSeq, cli.verify?.problem], [false, seq, 'hash-mismatch']);

    await sqlite3(d, `UPDATE audit SET data = '${original.replaceAll("'", "''")}' WHERE seq = ${seq}`);
    const restored = await verifyOverHttp(d);
    assert.deepEqual([restored.ok, restored.firstBadSeq, restored.problem], [true, null, null]);
    const cliRestored = await verifyWithCli(d);
    assert.equal(cliRestored.code, 0, cliRestored.stderr);
    assert.equal(cliRestored.verify?.ok, true);
  });
});
