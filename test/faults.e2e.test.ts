/**
 * Faults and hostile input against the built daemon (contract §11): each scenario that took the
 * daemon down, left work stuck or lost an event before, and the outcome the contract promises.
 * (Configuration attacks: test/config-attacks.e2e.test.ts; a full disk: test/disk-full.e2e.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { getFresh, metricValue, postWebhook, sign } from './support/http.js';
import { queryStore } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const metric = async (d: Daemon, name: string, labels: Record<string, string>): Promise<number> =>
  metricValue(await (await fetch(`${d.cp}/metrics`)).text(), name, labels) ?? 0;
const signedPost = (d: Daemon, body: string, headers: Record<string, string> = {}) =>
  postWebhook(d.url, body, { 'content-type': 'application/json', 'x-signature': sign(d.secret, body), ...headers });
const logLines = (d: Daemon): Array<Record<string, unknown>> =>
  readFileSync(d.logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('hostile bodies', () => {
  let d: Daemon;
  after(async () => { await d?.stop(); });

  it('deep JSON is a 400 before anything is stored; the views keep answering', async () => {
    d = await startDaemon();
    const nest = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    for (const levels of [65, 4150, 5000, 100_000]) {
      const r = await signedPost(d, nest(levels));
      assert.equal(r.status, 400, `${levels} levels`);
      assert.deepEqual(r.json, { error: 'EBADREQUEST', message: 'body nests deeper than 64 levels' });
    }
    const ok = await signedPost(d, nest(64), { 'x-alert-fingerprint': 'deep-64' });
    assert.equal(ok.status, 202);
    assert.equal(await metric(d, 'svc_webhook_rejected_total', { source: 'alertmanager', reason: 'bad-request' }), 4);
    const events = await (await fetch(`${d.cp}/events?limit=1000`)).json() as { items: Array<{ id: string; fingerprint?: string }> };
    assert.deepEqual(events.items.map((e) => e.fingerprint), ['deep-64'], 'only the 64-level body was stored');
    // The stored one is dead-lettered (it is no Alertmanager payload), never stuck in processing.
    await waitFor('the 64-level event finished', () => queryStore<{ status: string }>(d.home, 'SELECT status FROM events')[0]?.status === 'dead-lettered');
    assert.equal((await fetch(`${d.cp}/dlq`)).status, 200);
  });

  it('a megabyte of 300,000 empty alerts is checked and stored; its triage fails alone, the daemon answers throughout', async () => {
    const body = JSON.stringify({ version: '4', groupKey: 'g', status: 'firing', receiver: 'r', groupLabels: {}, commonLabels: {},
      commonAnnotations: {}, externalURL: 'http://am', alerts: Array.from({ length: 300_000 }, () => ({})) });
    assert.ok(body.length > 800_000 && body.length <= 1024 * 1024);
    let statusAnswers = 0;
    let stop = false;
    const poll = (async () => {
      while (!stop) {
        if ((await fetch(`${d.cp}/status`)).status === 200) statusAnswers += 1;
      }
    })();
    const r = await signedPost(d, body, { 'x-alert-fingerprint': 'empty-300k' });
    assert.equal(r.status, 202);
    const id = String(r.json?.eventId);
    const letter = await waitFor('the dead letter', () => queryStore<{ reason: string; error: string }>(d.home,
      'SELECT reason, error FROM dead_letters WHERE event_id = ?', id)[0]);
    stop = true;
    await poll;
    assert.deepEqual(letter, { reason: 'invalid-payload', error: 'alerts[0].status: must be "firing" or "resolved"' });
    assert.ok(statusAnswers > 0, '/status answered while the body was checked, stored and triaged');
  });
});

describe('a flood of slow headers', () => {
  let d: Daemon;
  const sockets: Socket[] = [];
  after(async () => {
    for (const s of sockets) s.destroy();
    await d?.stop();
  });

  it('1,100 connections that never finish their headers, under ulimit -n 1024: the control plane keeps answering, ingest recovers', async () => {
    d = await startDaemon({ openFiles: 1024 });
    const { port } = new URL(d.url);
    let opened = 0;
    let closedByServer = 0;
    await Promise.all(Array.from({ length: 1100 }, () => new Promise<void>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: Number(port) }, () => {
        opened += 1;
        s.write('POST /webhooks/alertmanager HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '); // and never more
        resolve();
      });
      s.resume(); // reads the server's 408, so its close is seen
      s.on('error', () => resolve());
      s.on('close', () => { closedByServer += 1; resolve(); });
      sockets.push(s);
    })));
    assert.ok(opened >= 1000, `${opened} connections opened`);
    // The listener holds 512; the rest are closed at once, and the process keeps descriptors to spare.
    await waitFor('the connections past the cap closed', () => closedByServer >= 1100 - 512);
    for (let i = 0; i < 5; i++) {
      const status = await fetch(`${d.cp}/status`);
      assert.equal(status.status, 200, 'the control plane answers during the flood');
    }
    // The held ones are cut after the 10 s headers timeout; then a signed alert is accepted again.
    await waitFor('every slow connection closed by the server', () => closedByServer === sockets.length, 30_000);
    const r = await signedPost(d, d.fixture, { 'x-alert-fingerprint': 'after-flood' });
    assert.equal(r.status, 202);
  });
});

describe('unauthenticated noise', () => {
  let d: Daemon;
  after(async () => { await d?.stop(); });

  it('2,000 bad signatures: all counted, a handful of log lines', async () => {
    d = await startDaemon();
    const before = logLines(d).length;
    for (let i = 0; i < 2000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => postWebhook(d.url, d.fixture, { 'x-signature': `sha256=${'0'.repeat(64)}` })
        .then((r) => assert.equal(r.status, 401))));
    }
    assert.equal(await metric(d, 'svc_webhook_rejected_total', { source: 'alertmanager', reason: 'unauthorized' }), 2000);
    const rejectedLines = logLines(d).slice(before).filter((l) => l.event === 'webhook.rejected');
    // One line per 10 s window: the run takes a few windows at most.
    assert.ok(rejectedLines.length >= 1 && rejectedLines.length <= 10, `${rejectedLines.length} log lines for 2,000 refusals`);
    // A later line says how many were left out since the one before.
    const told = rejectedLines.length + rejectedLines.reduce((n, l) => n + Number(l.suppressed ?? 0), 0);
    assert.ok(told <= 2000, `${told} refusals accounted for in the log`);
  });
});

describe('big answers', () => {
  let d: Daemon;
  after(async () => { await d?.stop(); });

  it('12 bodies of 900 KB read with limit=1000: pages of at most 4 MiB, every event listed, ingest unaffected', async () => {
    d = await startDaemon();
    const pad = 'x'.repeat(900 * 1024);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await signedPost(d, JSON.stringify({ n: i, pad }), { 'x-alert-fingerprint': `big-${i}` });
      assert.equal(r.status, 202);
      ids.push(String(r.json?.eventId));
    }
    // 40 readers walk every page at once while an alert comes in.
    const walk = async (): Promise<{ ids: string[]; biggest: number }> => {
      const seen: string[] = [];
      let biggest = 0;
      let cursor: string | null = null;
      for (;;) {
        // Each page on a connection of its own: a kept-alive one may be closed idle by the daemon while this
        // loaded process still reads the last answer (getFresh), which says nothing of the daemon's answers.
        const res = await getFresh(`${d.cp}/events?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        const text = res.text;
        assert.equal(res.status, 200);
        biggest = Math.max(biggest, Buffer.byteLength(text));
        const page = JSON.parse(text) as { items: Array<{ id: string }>; nextCursor: string | null };
        seen.push(...page.items.map((e) => e.id));
        if (page.nextCursor === null) return { ids: seen, biggest };
        cursor = page.nextCursor;
      }
    };
    const readers = Array.from({ length: 40 }, walk);
    const alert = await signedPost(d, d.fixture, { 'x-alert-fingerprint': 'while-reading' });
    assert.equal(alert.status, 202, 'a webhook is accepted while 40 readers walk 10 MB of pages');
    for (const r of await Promise.all(readers)) {
      assert.ok(r.biggest <= 4 * 1024 * 1024 + 64 * 1024, `a page of ${r.biggest} bytes`);
      for (const id of ids) assert.ok(r.ids.includes(id), `event ${id} listed`);
    }
  });
});

describe('damaged store', () => {
  it('a corrupt pending event becomes a corrupt-event dead letter, corrupt rows are listed, the daemon starts', async () => {
    const d = await startDaemon();
    try {
      const good = await signedPost(d, d.fixture, { 'x-alert-fingerprint': 'good' });
      assert.equal(good.status, 202);
      await waitFor('the good event processed', () => queryStore<{ status: string }>(d.home, 'SELECT status FROM events')[0]?.status === 'processed');
      assert.equal((await runSvc(['down'], { env: d.env, cwd: d.dir })).code, 0);
      // Behind the daemon's back: a pending event whose payload is not JSON, and an audit row whose data is not.
      const db = new Database(join(d.home, 'svc.db'));
      db.prepare(`INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, attempt)
        VALUES ('corrupt-1', ?, 'oncall-escalator', 'alertmanager', 'alert', NULL, 'accepted', '{"alerts": [', 0)`).run(Date.now());
      db.prepare("UPDATE audit SET data = 'not json' WHERE seq = 2").run();
      db.close();
      const up = await runSvc(['up', '-d'], { env: d.env, cwd: d.dir });
      assert.equal(up.code, 0, up.stderr);
      const letter = await waitFor('the corrupt-event dead letter', () => queryStore<{ reason: string }>(d.home,
        "SELECT reason FROM dead_letters WHERE event_id = 'corrupt-1'")[0]);
      assert.equal(letter.reason, 'corrupt-event');
      const events = await (await fetch(`${d.cp}/events`)).json() as { items: Array<{ id: string; corrupt?: boolean; payload: unknown }> };
      const bad = events.items.find((e) => e.id === 'corrupt-1');
      assert.deepEqual([bad?.corrupt, bad?.payload], [true, null]);
      const dlq = await fetch(`${d.cp}/dlq`);
      assert.equal(dlq.status, 200);
      const audit = await (await fetch(`${d.cp}/audit?verify=1&limit=5`)).json() as { items: Array<{ seq: number; corrupt?: boolean }>;
        verify: { ok: boolean; firstBadSeq: number; problem: string } };
      assert.equal(audit.items.find((r) => r.seq === 2)?.corrupt, true);
      assert.deepEqual([audit.verify.ok, audit.verify.firstBadSeq, audit.verify.problem], [false, 2, 'hash-mismatch']);
    } finally {
      await d.stop();
    }
  });

  it('a store file that is not a database: startup error naming it, exit 1, the file untouched', async () => {
    const t = tempEnv();
    try {
      const agent = await scaffoldAgent(t);
      mkdirSync(t.home, { recursive: true });
      const db = join(t.home, 'svc.db');
      writeFileSync(db, 'my notes, not a database\n');
      const before = statSync(db);
      const up = await runSvc(['up', '-d'], { env: t.env, cwd: agent.dir });
      assert.equal(up.code, 1);
      assert.match(up.stderr, /svc\.db is not an SQLite database/);
      assert.equal(readFileSync(db, 'utf8'), 'my notes, not a database\n');
      assert.equal(statSync(db).mtimeMs, before.mtimeMs);
    } finally {
      t.cleanup();
    }
  });
});
