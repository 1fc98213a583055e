/**
 * Operating the daemon (contract §13), end to end through the built CLI: svc check, DIR/.env with a
 * referenced port, /healthz and /readyz, svc dlq replay of a real dead letter, svc backup while alerts
 * flow and its offline verification (a tampered copy names the seq), SIGHUP after logrotate's rename,
 * the admin socket's mode, and — on a tmpfs that is remounted read-only — /readyz turning 503 while
 * the store cannot be written and 200 again after.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createConnection, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { freePort, postAlert } from './support/http.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { appendAgentYaml, pidAlive, runSvc, scaffoldAgent, spawnSvc, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** GET with node:http, so a test can send any Host header (fetch always sends the URL's). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
    }).on('error', reject).end();
  });
}

/** A webhook receiver that can be absent (the port closed) and then present. */
function startReceiver(port: number): Promise<{ received: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }>; close(): Promise<void> }> {
  const received: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({
    received, close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }) })));
}

describe('operating the daemon (contract §13)', () => {
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let env: NodeJS.ProcessEnv;
  let hookPort = 0;
  let ingestPort = 0;
  let pid = 0;
  const logFile = (): string => join(t.home, 'logs', 'oncall-escalator.log');
  const outFile = (): string => join(agent.dir, 'out', 'oncall-dm.jsonl');
  const svc = (args: string[]) => runSvc(args, { env, cwd: agent.dir });

  before(async () => {
    agent = await scaffoldAgent(t);
    hookPort = await freePort();
    ingestPort = Number(new URL(agent.url).port);
    appendAgentYaml(agent.dir, `controlPlane:\n  bind: 127.0.0.1\n  port: ${agent.cpPort}\ndispatch: { maxAttempts: 1, initialBackoffMs: 10, maxBackoffMs: 10 }\nstore: { deliveryWindow: 0s }`);
    // A second, outbound webhook channel whose receiver is absent at first: its deliveries dead-letter.
    writeFileSync(join(agent.dir, 'channels.yaml'), `${readFileSync(join(agent.dir, 'channels.yaml'), 'utf8')}
  - id: pager
    type: webhook
    direction: outbound
    url: http://127.0.0.1:${hookPort}/hook
    maxAttempts: 1
    timeoutMs: 1000
`);
    env = { ...t.env, SVC_METRICS_PORT: '' };
  });
  after(async () => {
    await svc(['down']);
    t.cleanup();
  });

  it('svc check: ok with nothing started; a port in use and a missing MCP command are exit 2, naming them; svc up refuses the same', async () => {
    const ok = await svc(['check']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /agent oncall-escalator: 1 source\(s\), 2 channel\(s\), 0 MCP server\(s\)/);
    assert.match(ok.stdout, new RegExp(`ok; ports free: 127\\.0\\.0\\.1:${ingestPort}, 127\\.0\\.0\\.1:${agent.cpPort}`));
    assert.equal(existsSync(join(t.home, 'up.pid')), false);

    const squatter = createNetServer();
    await new Promise<void>((resolve) => squatter.listen(ingestPort, '127.0.0.1', () => resolve()));
    const busy = await svc(['check', '--json']);
    await new Promise<void>((resolve) => squatter.close(() => resolve()));
    assert.equal(busy.code, 2);
    const report = JSON.parse(busy.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems, [`port ${ingestPort} (source alertmanager of agent oncall-escalator): in use`]);

    const agentYaml = readFileSync(join(agent.dir, 'agent.yaml'), 'utf8');
    appendAgentYaml(agent.dir, 'mcpServers:\n  - id: runbooks\n    command: svc-no-such-runbook-server\n');
    const missing = await svc(['check']);
    const up = await svc(['up', '-d']);
    writeFileSync(join(agent.dir, 'agent.yaml'), agentYaml);
    for (const r of [missing, up]) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /mcpServers\.0\.command: MCP server "runbooks": command "svc-no-such-runbook-server" not found on PATH/);
    }
    assert.equal(existsSync(join(t.home, 'up.pid')), false, 'nothing started');
  });

  it('svc up reads DIR/.env (a referenced port, converted); the real environment wins; the admin socket is 0600', async () => {
    const sources = join(agent.dir, 'event-sources.yaml');
    writeFileSync(sources, readFileSync(sources, 'utf8').replace(`port: ${ingestPort}`, 'port: ${env:INGEST_PORT}'));
    writeFileSync(join(agent.dir, '.env'), `INGEST_PORT=${ingestPort}\nSVC_METRICS_PORT=1\n`);
    const up = await svc(['up', '-d']);
    assert.equal(up.code, 0, up.stderr + up.stdout);
    assert.ok(up.stdout.includes(agent.url), up.stdout);
    assert.ok(up.stdout.includes(agent.cp), 'SVC_METRICS_PORT= in the real environment wins over .env');
    pid = Number(readFileSync(join(t.home, 'up.pid'), 'utf8'));
    assert.equal(statSync(join(t.home, 'admin.sock')).mode & 0o777, 0o600);
    // Detached, stdout is up.log: the daemon's own lines, as JSON.
    const upLog = readFileSync(join(t.home, 'up.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(upLog.some((r) => r.event === 'svc.daemon' && String(r.message).startsWith('svc up: running')), JSON.stringify(upLog));
  });

  it('/healthz and /readyz answer without a token; the Host check applies', async () => {
    assert.deepEqual(await get(`${agent.cp}/healthz`), { status: 200, json: { status: 'ok' } });
    assert.deepEqual(await get(`${agent.cp}/readyz`), { status: 200, json: { status: 'ready' } });
    assert.equal((await get(`${agent.cp}/healthz`, { host: 'svc.example.com' })).status, 403);
  });

  let deadLetterId = '';
  it('svc dlq replay puts a real dead letter back: replayedAt, a dlq.replayed audit row, and the message delivered', async () => {
    const res = await postAlert(agent.url, agent.secret, agent.fixture, 'ops-dlq-1');
    assert.equal(res.status, 202);
    const eventId = String(res.json?.eventId);
    const letter = await waitFor('the dead letter', () => queryStore<{ id: string; reason: string }>(t.home,
      'SELECT id, reason FROM dead_letters WHERE event_id = ?', eventId)[0]);
    deadLetterId = letter.id;
    const receiver = await startReceiver(hookPort);
    try {
      const missing = await svc(['dlq', 'replay', 'no-such-dead-letter']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /not found \(or already replayed\): no-such-dead-letter/);
      const replay = await svc(['dlq', 'replay', deadLetterId, '--json']);
      assert.equal(replay.code, 0, replay.stderr);
      assert.deepEqual(JSON.parse(replay.stdout), { replayed: [deadLetterId], missing: [], replayedCount: 1, missingCount: 0 });
      const delivered = await waitFor('the replayed message', () => receiver.received.find((r) => r.body.eventId === eventId));
      assert.match(String(delivered.body.text), /^\[P1\] FIRING: HighErrorRate/);
      const dlq = await svc(['dlq', '--json']);
      const row = (JSON.parse(dlq.stdout) as { items: Array<Record<string, unknown>> }).items.find((d) => d.id === deadLetterId);
      assert.match(String(row?.replayedAt), /^\d{4}-\d\d-\d\dT/);
      const audit = auditRows(t.home).find((r) => r.kind === 'dlq.replayed');
      assert.equal(audit?.actor, 'admin-socket');
      assert.deepEqual([audit?.data.deadLetterId, audit?.data.eventId], [deadLetterId, eventId]);
      // The file channel already had the line: the replay did not write it twice.
      assert.equal(readJsonLines(outFile()).filter((l) => l.eventId === eventId).length, 1);
      const again = await svc(['dlq', 'replay', deadLetterId]);
      assert.equal(again.code, 1, 'a replayed dead letter is not replayed twice');
    } finally {
      await receiver.close();
    }
  });

  it('svc dlq replay --all --source --reason puts back every matching dead letter and nothing else', async () => {
    const res = await postAlert(agent.url, agent.secret, agent.fixture, 'ops-dlq-all');
    const eventId = String(res.json?.eventId);
    const letter = await waitFor('the dead letter', () => queryStore<{ id: string; reason: string }>(t.home,
      'SELECT id, reason FROM dead_letters WHERE event_id = ?', eventId)[0]);
    const receiver = await startReceiver(hookPort);
    try {
      const other = await svc(['dlq', 'replay', '--all', '--source', 'alertmanager', '--reason', 'no-such-reason', '--json']);
      assert.deepEqual(JSON.parse(other.stdout), { replayed: [], missing: [], replayedCount: 0, missingCount: 0 }, other.stderr);
      const replay = await svc(['dlq', 'replay', '--all', '--source', 'alertmanager', '--reason', letter.reason, '--json']);
      assert.equal(replay.code, 0, replay.stderr);
      assert.deepEqual(JSON.parse(replay.stdout), { replayed: [letter.id], missing: [], replayedCount: 1, missingCount: 0 });
      await waitFor('the replayed message', () => receiver.received.find((r) => r.body.eventId === eventId));
    } finally {
      await receiver.close();
    }
  });

  it('svc backup while alerts flow, verified offline; a tampered copy exits 1 naming the seq', async () => {
    const backup = join(t.work, 'backup.db');
    let posted = 0;
    let stop = false;
    const statuses: number[] = [];
    const flow = (async () => {
      while (!stop && posted < 2000) {
        statuses.push((await postAlert(agent.url, agent.secret, agent.fixture, `ops-flow-${posted++}`)).status);
      }
    })();
    await waitFor('alerts flowing', () => posted >= 20);
    const r = await svc(['backup', backup, '--json']);
    const postedDuringBackup = posted;
    await waitFor('more alerts after the backup', () => posted >= postedDuringBackup + 20);
    stop = true;
    await flow;
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { path: string; bytes: number; daemon: boolean };
    assert.deepEqual([result.path, result.daemon], [backup, true]);
    assert.ok(result.bytes > 0);
    assert.equal(statSync(backup).mode & 0o777, 0o600, 'the copy is as private as the store, whatever the umask');
    assert.deepEqual([...new Set(statuses)], [202], 'every alert during the backup was accepted');
    assert.ok(auditRows(t.home).some((row) => row.kind === 'store.backup' && row.data.path === backup));

    const before = sha(backup);
    const verify = await svc(['audit', '--verify', '--db', backup]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /chain ok: \d+ rows checked/);
    assert.equal(sha(backup), before, 'verification changed the backup');

    const copy = join(t.work, 'tampered.db');
    copyFileSync(backup, copy);
    const db = new Database(copy);
    db.prepare('UPDATE audit SET actor = ? WHERE seq = 3').run('mallory');
    db.close();
    const broken = await svc(['audit', '--verify', '--db', copy, '--json']);
    assert.equal(broken.code, 1);
    const report = JSON.parse(broken.stdout) as { verify: { ok: boolean; firstBadSeq: number; problem: string } };
    assert.deepEqual([report.verify.ok, report.verify.firstBadSeq, report.verify.problem], [false, 3, 'hash-mismatch']);
    const text = await svc(['audit', '--verify', '--db', copy]);
    assert.match(text.stdout, /chain BROKEN at seq 3: hash-mismatch/);

    const exists = await svc(['backup', backup]);
    assert.equal(exists.code, 1);
    assert.equal(exists.stderr, `svc backup: ${backup} exists; use --force to replace it\n`);
    assert.equal((await svc(['backup', backup, '--force'])).code, 0);
  });

  it('SIGHUP after logrotate\'s rename: the daemon lives on, new records go to the new files, svc logs shows them', async () => {
    renameSync(logFile(), `${logFile()}.1`);
    renameSync(outFile(), `${outFile()}.1`);
    process.kill(pid, 'SIGHUP');
    await waitFor('the reopen', () => readFileSync(join(t.home, 'up.log'), 'utf8').includes('reopened 1 agent log(s)'));
    assert.ok(pidAlive(pid), 'SIGHUP stopped the daemon');
    const res = await postAlert(agent.url, agent.secret, agent.fixture, 'ops-after-hup');
    assert.equal(res.status, 202);
    const eventId = String(res.json?.eventId);
    await waitFor('the record in the new log file', () => existsSync(logFile())
      && readJsonLines(logFile()).some((r) => r.event === 'webhook.accepted' && r.eventId === eventId));
    await waitFor('the message in the new channel file', () => readJsonLines(outFile()).some((l) => l.eventId === eventId));
    assert.ok(!readFileSync(`${logFile()}.1`, 'utf8').includes(eventId), 'the rotated file got a new record');
    const logs = await svc(['logs', '--json']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.ok(logs.stdout.split('\n').filter(Boolean).some((l) => (JSON.parse(l) as Record<string, unknown>).eventId === eventId));
  });

  it('svc down does not wait on admin clients that stopped reading or never finish asking; "stopped" only once the pid is gone', async () => {
    // One asks for a large answer (1,000 ids of 60 characters) and never reads it; one never finishes its request.
    const ids = Array.from({ length: 1000 }, (_, i) => `missing-${String(i).padStart(52, '0')}`);
    const unread = createConnection({ path: join(t.home, 'admin.sock') });
    unread.pause();
    unread.write(`${JSON.stringify({ op: 'dlq.replay', ids })}\n`);
    const silent = createConnection({ path: join(t.home, 'admin.sock') });
    silent.write('{"op":"pi');
    for (const c of [unread, silent]) c.on('error', () => undefined);
    await waitFor('the replay answered', () => readFileSync(join(t.home, 'up.log'), 'utf8').includes('1000 not found'));
    const down = await svc(['down']);
    const alive = pidAlive(pid);
    unread.destroy();
    silent.destroy();
    assert.equal(down.code, 0, down.stderr);
    assert.equal(down.stdout, `svc down: stopped (pid ${pid})\n`);
    assert.equal(alive, false, 'svc down said stopped while the daemon still ran');
  });

  it('with the daemon stopped: svc backup opens the store itself, and the stopped store verifies unchanged', async () => {
    assert.equal((await svc(['down'])).code, 0);
    const offline = join(t.work, 'offline.db');
    const r = await svc(['backup', offline]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /svc is not running/);
    assert.equal(statSync(offline).mode & 0o777, 0o600);
    const store = join(t.home, 'svc.db');
    // A path to the store through a symbolic link is still the store.
    symlinkSync(t.home, join(t.work, 'home-link'));
    const over = await svc(['backup', join(t.work, 'home-link', 'svc.db'), '--force']);
    assert.equal(over.code, 1, over.stdout + over.stderr);
    assert.match(over.stderr, /^svc backup: refusing to write a backup over the store itself/);
    const before = sha(store);
    const verify = await svc(['audit', '--verify', '--db', store]);
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(sha(store), before);
    assert.equal(existsSync(`${store}-wal`), false, 'no side files left');
    const replay = await svc(['dlq', 'replay', '--all']);
    assert.equal(replay.code, 1);
    assert.match(replay.stderr, /svc is not running/);
  });
});

/** Fills the file system of `path` until a write fails with ENOSPC; returns the filler's size. */
function fillUp(path: string): number {
  const fd = openSync(path, 'a');
  let size = 0;
  try {
    for (const chunk of [1024 * 1024, 4096]) {
      const buffer = Buffer.alloc(chunk);
      for (;;) {
        try {
          size += writeSync(fd, buffer);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return size;
}

/** Whether this process may mount a tmpfs (root on Linux, not in every container). */
function tryMount(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('/readyz while the store cannot be written (SVC_HOME on a small tmpfs that fills up)', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-readyz-'));
  const mnt = join(root, 'mnt');
  mkdirSync(mnt);
  const mounted = tryMount(mnt, '64m');
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let daemon: ReturnType<typeof spawnSvc> | null = null;
  let env: NodeJS.ProcessEnv;

  after(async () => {
    rmSync(join(mnt, 'filler'), { force: true });
    await daemon?.stop('SIGTERM');
    if (mounted) execFileSync('umount', [mnt], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
    t.cleanup();
  });

  // The same condition at the seam (a failing probeWrite) is src/daemon/readiness.test.ts, which runs everywhere.
  it('turns 503 store-not-writable, and 200 again once the file system takes writes', { skip: mounted ? false : 'cannot mount a tmpfs here (not root?); src/daemon/readiness.test.ts covers the seam' }, async () => {
    env = { ...t.env, SVC_HOME: join(mnt, 'home'), SVC_METRICS_PORT: '' };
    agent = await scaffoldAgent({ ...t, home: join(mnt, 'home'), env });
    appendAgentYaml(agent.dir, `controlPlane:\n  bind: 127.0.0.1\n  port: ${agent.cpPort}`);
    // Foreground, text logs on stdout (contract §13).
    daemon = spawnSvc(['up', '--log-format', 'text'], { env, cwd: agent.dir });
    await waitFor('the daemon', () => daemon?.stdout().includes('svc up: running'), 30_000);
    assert.match(daemon.stdout(), /^\d{4}-\d\d-\d\dT\S+ INFO {2}oncall-escalator config\.loaded /m);
    assert.equal((await get(`${agent.cp}/readyz`)).status, 200);

    // Disk full: the probe write needs a page the file system no longer has.
    assert.ok(fillUp(join(mnt, 'filler')) > 0);
    const notReady = await waitFor('503', async () => { const r = await get(`${agent.cp}/readyz`); return r.status === 503 ? r : null; });
    assert.deepEqual(notReady.json, { status: 'not-ready', reasons: ['store-not-writable'] });
    assert.equal((await get(`${agent.cp}/healthz`)).status, 200, 'still serving');
    const refused = await postAlert(agent.url, agent.secret, agent.fixture, 'ro-1');
    assert.equal(refused.status, 503, 'nothing can be stored');

    rmSync(join(mnt, 'filler'));
    await waitFor('200 again', async () => (await get(`${agent.cp}/readyz`)).status === 200);
    const accepted = await postAlert(agent.url, agent.secret, agent.fixture, 'ro-1');
    assert.equal(accepted.status, 202, 'the sender\'s retry is accepted');
    assert.match(daemon.stdout(), /readiness: not ready \(store-not-writable; store: /);
  });
});
