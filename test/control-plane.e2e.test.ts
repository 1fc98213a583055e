/**
 * The control plane of the real daemon on loopback: exact headers, Host guard, methods, /status live,
 * /metrics through promtool, keyset pagination while rows are written, audit tampering found at the
 * right seq through `svc audit --verify`, /logs frames, and the CLI views.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { freePort, postAlert } from './support/http.js';
import { queryStore } from './support/store.js';
import { readSecretFile, runSvc, setIngestPort, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

// The parts of /status these tests read.
interface Status {
  version: number; pid: number; uptimeSeconds: number; controlPlane: unknown; store: unknown;
  agents: [{ id: string; state: string; provider: string; channels: unknown; mcpServers: unknown;
    sources: [{ id: string; received: number; inflight: number }] }];
}

/** One raw HTTP/1.1 exchange, so Host headers can be malformed or doubled. */
function rawRequest(port: number, head: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => { data += d.toString(); });
    socket.on('error', reject);
    socket.on('end', () => {
      const [headers = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(headers.split(' ')[1]), headers, body });
    });
    socket.write(head.replaceAll('\n', '\r\n') + '\r\n\r\n');
  });
}

describe('control plane against the running daemon', () => {
  const t = tempEnv();
  const dir = join(t.work, 'agent');
  let cp = '';
  let cpPort = 0;
  let url = '';
  let secret = '';
  let fixture = '';
  let n = 0;
  const env = (): NodeJS.ProcessEnv => ({ ...t.env, SVC_METRICS_PORT: String(cpPort) });
  const svc = (...args: string[]) => runSvc(args, { env: env(), cwd: dir });
  const send = async (): Promise<string> => {
    const res = await postAlert(url, secret, fixture, `cp-${n++}`);
    assert.equal(res.status, 202);
    return String(res.json?.eventId);
  };
  const sendMany = async (count: number, concurrency = 16): Promise<void> => {
    let left = count;
    await Promise.all(Array.from({ length: concurrency }, async () => { while (left-- > 0) await send(); }));
  };

  before(async () => {
    mkdirSync(t.work, { recursive: true });
    assert.equal((await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', dir], { env: t.env, cwd: t.work })).code, 0);
    const port = await freePort();
    setIngestPort(dir, port);
    url = `http://127.0.0.1:${port}/webhooks/alertmanager`;
    cpPort = await freePort();
    cp = `http://127.0.0.1:${cpPort}`;
    secret = readSecretFile(t.home, 'alert-escalation/webhook-hmac');
    fixture = readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8');
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await svc('down');
    t.cleanup();
  });

  it('/status: exact JSON headers and live values', async () => {
    const before = (await (await fetch(`${cp}/status`)).json()) as Status;
    await send();
    const res = await fetch(`${cp}/status`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const status = (await res.json()) as Status;
    assert.equal(status.version, 1);
    assert.equal(status.pid, Number(readFileSync(join(t.home, 'up.pid'), 'utf8')));
    assert.equal(typeof status.uptimeSeconds, 'number');
    assert.deepEqual(status.controlPlane, { bind: '127.0.0.1', port: cpPort, auth: { enabled: false, provider: null } });
    // id: the store's identity, the first audit row's hash (daemon/store-identity.ts).
    const storeId = (status.store as { id?: unknown }).id;
    assert.match(String(storeId), /^[0-9a-f]{32}$/);
    assert.deepEqual(status.store, { kind: 'sqlite', id: storeId, replica: readFileSync(join(t.home, 'replica-id'), 'utf8').trim(), leader: true,
      retention: { events: null, deadLetters: null } });
    const agent = status.agents[0];
    assert.equal(agent.id, 'oncall-escalator');
    assert.equal(agent.state, 'running');
    assert.equal(agent.provider, 'rules');
    assert.equal(agent.sources[0].id, 'alertmanager');
    assert.equal(agent.sources[0].received, before.agents[0].sources[0].received + 1);
    assert.deepEqual(agent.channels, [{ id: 'oncall-dm', type: 'file', direction: 'outbound', ready: true }]);
    assert.deepEqual(agent.mcpServers, []);
  });

  it('/metrics: exact content type, live source counters, promtool finds only the fixed-name lint', async () => {
    await waitFor('inflight drained', async () => {
      const s = (await (await fetch(`${cp}/status`)).json()) as Status;
      return s.agents[0].sources[0].inflight === 0 ? s : undefined;
    });
    const status = (await (await fetch(`${cp}/status`)).json()) as Status;
    const res = await fetch(`${cp}/metrics`);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const received = text.match(/^source_messages_received_total\{agent="oncall-escalator",source="alertmanager"\} (\d+)$/m);
    assert.equal(Number(received?.[1]), status.agents[0].sources[0].received);
    for (const family of ['mcp_server_restarts_total', 'svc_audit_backpressure_active', 'svc_provider_rate_limit_waits', 'source_inflight', 'source_messages_dlq_total']) {
      assert.match(text, new RegExp(`^# TYPE ${family} `, 'm'));
    }
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.ok(check.error === undefined, 'promtool must be installed (.ci/run installs Debian prometheus)');
    const complaints = `${check.stdout}${check.stderr}`.split('\n').filter((l) => l.trim() !== '');
    for (const line of complaints) assert.match(line, /svc_provider_rate_limit_waits|_ms|non-base units/, line);
  });

  it('Host guard: spoofed, empty and doubled Host headers are refused', async () => {
    const ok = await rawRequest(cpPort, `GET /status HTTP/1.1\nHost: 127.0.0.1:${cpPort}\nConnection: close`);
    assert.equal(ok.status, 200);
    for (const host of ['evil.com', 'localhost.evil.com', 'localhost@evil.com', '127.0.0.1.nip.io', '']) {
      const res = await rawRequest(cpPort, `GET /status HTTP/1.1\nHost: ${host}\nConnection: close`);
      assert.equal(res.status, 403, host);
      assert.deepEqual(JSON.parse(res.body), { error: 'remote control-plane disabled' });
    }
    const doubled = await rawRequest(cpPort, `GET /status HTTP/1.1\nHost: localhost\nHost: evil.com\nConnection: close`);
    assert.equal(doubled.status, 400);
  });

  it('methods and unknown paths', async () => {
    const post = await fetch(`${cp}/status`, { method: 'POST', body: '{}' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.deepEqual(await post.json(), { error: 'method not allowed' });
    const head = await fetch(`${cp}/status`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const missing = await fetch(`${cp}/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'application/json; charset=utf-8');
  });

  it('/events: walking every page while new rows are written returns each row once, in order', async () => {
    await sendMany(1500);
    const existing = queryStore<{ id: string }>(t.home, 'SELECT id FROM events ORDER BY seq').map((r) => r.id);
    for (const order of ['asc', 'desc'] as const) {
      const writer = sendMany(300, 4);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams({ limit: '100', order });
        if (cursor) q.set('cursor', cursor);
        const page = (await (await fetch(`${cp}/events?${q.toString()}`)).json()) as { items: Array<{ id: string }>; nextCursor: string | null };
        seen.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      await writer;
      const expected = order === 'asc' ? existing : [...existing].reverse();
      const relevant = seen.filter((id) => existing.includes(id));
      assert.deepEqual(relevant, expected, `every pre-existing row once, in ${order} order`);
      assert.equal(new Set(seen).size, seen.length, 'no row twice');
    }
    const bad = await fetch(`${cp}/events?limit=1001`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /limit/);
  });

  it('svc audit --verify finds a changed row, a changed prevHash and a deleted row at the right seq', async () => {
    const good = await svc('audit', '--verify', '--json');
    assert.equal(good.code, 0, good.stderr);
    assert.equal(JSON.parse(good.stdout).verify.ok, true);
    const db = new Database(join(t.home, 'svc.db'));
    db.pragma('busy_timeout = 5000');
    const verify = async () => {
      const r = await svc('audit', '--verify', '--json');
      return { code: r.code, verify: JSON.parse(r.stdout).verify as Record<string, unknown> };
    };
    try {
      const original = db.prepare('SELECT data, prev_hash FROM audit WHERE seq = 5').get() as { data: string; prev_hash: string };
      db.prepare('UPDATE audit SET data = ? WHERE seq = 5').run('{"tampered":true}');
      let r = await verify();
      assert.equal(r.code, 1);
      assert.equal(r.verify.firstBadSeq, 5);
      assert.equal(r.verify.problem, 'hash-mismatch');
      db.prepare('UPDATE audit SET data = ? WHERE seq = 5').run(original.data);
      assert.equal((await verify()).code, 0);

      db.prepare('UPDATE audit SET prev_hash = ? WHERE seq = 7').run('f'.repeat(64));
      r = await verify();
      assert.equal(r.verify.firstBadSeq, 7);
      assert.equal(r.verify.problem, 'prev-link-mismatch');
      const seven = db.prepare('SELECT prev_hash FROM audit WHERE seq = 6').get() as { prev_hash: string };
      const sixHash = (db.prepare('SELECT hash FROM audit WHERE seq = 6').get() as { hash: string }).hash;
      assert.ok(seven.prev_hash.length === 64);
      db.prepare('UPDATE audit SET prev_hash = ? WHERE seq = 7').run(sixHash);
      assert.equal((await verify()).code, 0);

      db.prepare('DELETE FROM audit WHERE seq = 9').run();
      r = await verify();
      assert.equal(r.verify.firstBadSeq, 9);
      assert.equal(r.verify.problem, 'seq-gap');
    } finally {
      db.close();
    }
  });

  it('/logs: an unknown agent gets the exact 400; a live record arrives as an `event: log` frame', async () => {
    const bad = await fetch(`${cp}/logs?agent=nope`, { headers: { accept: 'text/event-stream' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'unknown agent "nope"' });
    const traversal = await fetch(`${cp}/logs?agent=..%2F..%2Fsvc.db`);
    assert.equal(traversal.status, 400);

    const controller = new AbortController();
    const res = await fetch(`${cp}/logs?agent=oncall-escalator`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const frames: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => frames.push(e) });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    })();
    await waitFor('caught-up: the stream follows the log', () => frames.some((f) => f.event === 'system' && f.data === '{"system":"caught-up"}'));
    const eventId = await send();
    const frame = await waitFor('the webhook.accepted frame', () =>
      frames.find((f) => f.event === 'log' && (JSON.parse(f.data) as Record<string, unknown>).eventId === eventId));
    assert.ok(frame.id && frame.id.length > 0);
    const record = JSON.parse(frame.data) as Record<string, unknown>;
    assert.equal(record.agentId, 'oncall-escalator');
    controller.abort();
    await pump;
  });

  it('100 /logs clients that come and go leave the daemon with the file descriptors it had', async () => {
    const pid = Number(readFileSync(join(t.home, 'up.pid'), 'utf8'));
    const fds = (): number => readdirSync(`/proc/${pid}/fd`).length;
    const baseline = fds();
    for (let round = 0; round < 4; round += 1) {
      const controllers = await Promise.all(Array.from({ length: 25 }, async () => {
        const c = new AbortController();
        const res = await fetch(`${cp}/logs`, { signal: c.signal });
        assert.equal(res.status, 200);
        return c;
      }));
      for (const c of controllers) c.abort();
    }
    await waitFor('fds back to baseline', () => (fds() <= baseline ? true : undefined), 10_000);
  });

  it('the CLI reads every view', async () => {
    // The log is printed first and compared with the file at once; the other reads change nothing,
    // so they run side by side (each is a process of its own).
    const logs = await svc('logs', '--agent', 'oncall-escalator');
    const fileLines = readFileSync(join(t.home, 'logs', 'oncall-escalator.log'), 'utf8').trim().split('\n');
    const count = queryStore<{ n: number }>(t.home, 'SELECT count(*) AS n FROM events')[0]?.n;
    const [ps, psJsonRun, events, limited, dlq, table, badLimit, logsJson, future, nowhere, noAgent] = await Promise.all([
      svc('ps'), svc('ps', '--json'), svc('events', '--json'),
      // --limit is the number of rows printed (contract §13), across pages.
      svc('events', '--json', '--limit', '1500'), svc('dlq', '--json'), svc('events', '--agent', 'oncall-escalator', '--limit', '1000'),
      svc('events', '--limit', '0'), svc('logs', '--json'), svc('logs', '--since', new Date(Date.now() + 3_600_000).toISOString()),
      freePort().then((port) => runSvc(['ps', '--url', `http://127.0.0.1:${port}`], { env: env(), cwd: dir })),
      svc('logs', '--agent', 'nope'),
    ]);
    // The listener's refusal in its words, naming the command (it read "/logs: HTTP 400: …").
    assert.deepEqual([noAgent.code, noAgent.stderr], [1, 'svc logs: unknown agent "nope"\n']);
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, /agent oncall-escalator {2}running {2}provider rules/);
    assert.match(ps.stdout, /alertmanager +webhook +\d+/);
    const psJson = JSON.parse(psJsonRun.stdout) as Record<string, unknown>;
    assert.equal(psJson.version, 1);
    assert.equal(events.code, 0, events.stderr);
    assert.equal((JSON.parse(events.stdout) as { items: unknown[] }).items.length, count);
    assert.equal((JSON.parse(limited.stdout) as { items: unknown[] }).items.length, Math.min(1500, count ?? 0));
    assert.deepEqual(JSON.parse(dlq.stdout), { items: [] });
    assert.match(table.stdout.split('\n')[0] ?? '', /^TS +ID +STATUS +SEV +TITLE +TRIAGED BY +AGENT +SOURCE +STATE +FINGERPRINT$/);
    assert.equal(badLimit.code, 2, 'a bad --limit is a usage error, refused before any request');
    assert.match(badLimit.stderr, /limit/);
    assert.equal(logs.code, 0, logs.stderr);
    const logLines = logs.stdout.trim().split('\n');
    assert.ok(logLines.length >= fileLines.length, `${logLines.length} printed, ${fileLines.length} in the file`);
    assert.match(logLines[0] ?? '', /^\d{4}-\d\d-\d\dT[\d:.]+Z info +oncall-escalator config\.loaded /);
    assert.equal(logsJson.code, 0, logsJson.stderr);
    const records = logsJson.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(records.some((r) => r.event === 'webhook.accepted'));
    assert.equal(future.code, 0, future.stderr);
    assert.equal(future.stdout, '');
    assert.equal(nowhere.code, 1);
    assert.match(nowhere.stderr, /cannot reach the control plane/);
  });
});
