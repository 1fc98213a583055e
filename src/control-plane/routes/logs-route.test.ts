import { strict as assert } from 'node:assert';
import { appendFileSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventSource } from 'eventsource';
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import type { Clock } from '../../core/clock.js';
import { fakeClock, systemClock } from '../../core/clock.js';
import { createTailerRegistry } from '../../logs/file-tailer.js';
import type { TailerRegistry } from '../../logs/file-tailer.js';
import { asksToClose, createLogsRoute } from './logs-route.js';
import type { LogsRouteDeps } from './logs-route.js';
import { waitFor, within } from '../../../test/support/wait.js';

/** A tiny listener that mounts the route at /logs, like the real one will (which someone else writes). */
interface Harness {
  port: number;
  url(query?: string): string;
  sockets: Set<Socket>;
  lastEventIds: (string | undefined)[];
  close(): Promise<void>;
}

/** `clock` is the route's: the `x-test-expires-in` header gives the token an expiry that far ahead of its now(). */
async function startHarness(route: ReturnType<typeof createLogsRoute>, clock: Clock): Promise<Harness> {
  const sockets = new Set<Socket>();
  const lastEventIds: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/logs') { res.writeHead(404).end(); return; }
    lastEventIds.push(req.headers['last-event-id'] as string | undefined);
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const expiresIn = req.headers['x-test-expires-in'];
    const expiresAtMs = typeof expiresIn === 'string' ? clock.now() + Number(expiresIn) : null;
    void route({ req, res, url, signal: ac.signal, principal: { expiresAtMs } });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (q = '') => `http://127.0.0.1:${port}/logs${q}`,
    sockets,
    lastEventIds,
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}

interface RawClient {
  res: IncomingMessage;
  events: EventSourceMessage[];
  /** `caught-up` frames, kept apart so the other tests count only what they are about. */
  caughtUp: EventSourceMessage[];
  comments: string[];
  raw(): string;
  ended: Promise<void>;
  destroy(): void;
}

/** A plain node:http client whose body is parsed by eventsource-parser. */
function connect(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      const events: EventSourceMessage[] = [];
      const caughtUp: EventSourceMessage[] = [];
      const comments: string[] = [];
      let raw = '';
      const isCaughtUp = (e: EventSourceMessage): boolean => e.event === 'system' && e.data === '{"system":"caught-up"}';
      const parser = createParser({ onEvent: (e) => (isCaughtUp(e) ? caughtUp : events).push(e), onComment: (c) => comments.push(c) });
      res.setEncoding('utf8');
      res.on('data', (d: string) => { raw += d; parser.feed(d); });
      const ended = new Promise<void>((r) => { res.on('end', r); res.on('close', r); });
      resolve({ res, events, caughtUp, comments, raw: () => raw, ended, destroy: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A client whose stream is live: `caught-up` came, so every agent's subscription is in place. */
async function connectLive(url: string, headers: Record<string, string> = {}): Promise<RawClient> {
  const c = await connect(url, headers);
  await waitFor('caught-up', () => c.caughtUp.length === 1);
  return c;
}

/** A full GC, so a heap figure is what is retained, not garbage not yet collected. */
function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const logs = (c: { events: EventSourceMessage[] }) => c.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data) as Record<string, unknown>);
const systems = (c: { events: EventSourceMessage[] }) => c.events.filter((e) => e.event === 'system').map((e) => JSON.parse(e.data) as Record<string, unknown>);
const rec = (agentId: string, i: number, tsMs = Date.UTC(2025, 0, 1) + i, extra = '') =>
  JSON.stringify({ agentId, ts: new Date(tsMs).toISOString(), level: 'info', event: 'tick', i, extra }) + '\n';

describe('GET /logs', () => {
  let root: string;
  let logDir: string;
  let tailers: TailerRegistry;
  let running: string[];
  let pathCalls: string[];
  let h: Harness;
  const logFile = (id: string) => join(logDir, `${id}.log`);

  async function mount(extra: Partial<LogsRouteDeps> = {}): Promise<void> {
    await h?.close();
    const clock = extra.clock ?? systemClock;
    h = await startHarness(createLogsRoute({
      agents: () => running,
      logPath: (id) => { pathCalls.push(id); return logFile(id); },
      tailers,
      clock,
      ...extra,
    }), clock);
  }

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-logs-route-'));
    logDir = join(root, 'logs');
    mkdirSync(logDir);
    tailers = createTailerRegistry({ clock: systemClock, pollMs: 100 });
    running = ['alpha', 'beta'];
    pathCalls = [];
    writeFileSync(logFile('alpha'), '');
    writeFileSync(logFile('beta'), '');
    await mount();
  });

  afterEach(async () => {
    await h.close();
    tailers.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('with no running agent, the headers go out at once, not with the first keep-alive', async () => {
    running = [];
    await mount({ clock: fakeClock(Date.UTC(2025, 0, 1)) }); // its keep-alive never beats
    const c = await within(connect(h.url()), 'the headers of a stream without agents', 30_000);
    assert.equal(c.res.statusCode, 200);
    assert.equal(c.raw(), '');
    c.destroy();
  });

  it('answers with exactly the event-stream headers; HEAD gets them without a stream', async () => {
    const c = await connect(h.url('?agent=alpha'));
    assert.equal(c.res.statusCode, 200);
    const raw = c.res.rawHeaders;
    const pairs = new Map<string, string>();
    for (let i = 0; i < raw.length; i += 2) pairs.set(raw[i]!, raw[i + 1]!);
    assert.equal(pairs.get('Content-Type'), 'text/event-stream; charset=utf-8');
    assert.equal(pairs.get('Cache-Control'), 'no-cache, no-transform');
    assert.equal(pairs.get('Connection'), 'keep-alive');
    assert.equal(pairs.get('X-Accel-Buffering'), 'no');
    c.destroy();

    const head = await connect(h.url('?agent=alpha'), {}, 'HEAD');
    assert.equal(head.res.statusCode, 200);
    assert.equal(head.res.headers['content-type'], 'text/event-stream; charset=utf-8');
    await head.ended;
    assert.equal(head.raw(), '');
    await waitFor('no subscriber left', () => tailers.stats().subscribers === 0);
  });

  it('a HEAD that asks for Connection: close is closed after its head, headers as specified (found by test/query-fuzz.test.ts)', async () => {
    // The specification's `Connection: keep-alive` header overrode the client's `close`: the connection
    // then idled until the keep-alive timeout. Here there is none (0), so only the route can close it.
    const route = createLogsRoute({ agents: () => running, logPath: logFile, tailers, clock: systemClock });
    const server = createServer((req, res) => {
      const ac = new AbortController();
      void route({ req, res, url: new URL(req.url ?? '/', 'http://127.0.0.1'), signal: ac.signal, principal: { expiresAtMs: null } });
    });
    server.keepAliveTimeout = 0;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const socket = netConnect((server.address() as AddressInfo).port, '127.0.0.1');
      let answer = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => { answer += d; });
      const closed = new Promise<void>((r) => socket.on('close', () => r()));
      socket.write('HEAD /logs?agent=alpha HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await within(closed, 'the server to close the connection after the HEAD answer');
      assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(answer, /\r\nConnection: keep-alive\r\n/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    assert.equal(asksToClose('Keep-Alive, Close'), true);
    assert.equal(asksToClose('keep-alive'), false);
    assert.equal(asksToClose('closed'), false);
    assert.equal(asksToClose(undefined), false);
  });

  it('without since, a record written as soon as the answer begins is the first one delivered', async () => {
    // The tail starts at the end of the file: the headers go out only once that end is fixed, so a
    // record written right after them is never in the gap between the two.
    appendFileSync(logFile('alpha'), rec('alpha', 0));
    for (let round = 1; round <= 5; round++) {
      const c = await connect(h.url('?agent=alpha'));
      appendFileSync(logFile('alpha'), rec('alpha', round));
      await waitFor(`record ${round}`, () => logs(c).length === 1);
      assert.deepEqual(logs(c).map((r) => r.i), [round]);
      c.destroy();
    }
  });

  it('sends appended records as log frames with ids, parsed by eventsource-parser', async () => {
    const c = await connectLive(h.url('?agent=alpha'));
    appendFileSync(logFile('alpha'), rec('alpha', 1) + 'not json\n' + rec('alpha', 2));
    await waitFor('three frames', () => c.events.length === 3);
    assert.deepEqual(c.events.map((e) => e.event), ['log', 'system', 'log']);
    assert.deepEqual(logs(c).map((r) => r.i), [1, 2]);
    assert.equal(logs(c)[0]!.agentId, 'alpha');
    assert.deepEqual(systems(c)[0], { system: 'invalid-record', agent: 'alpha', reason: 'not-json', offset: rec('alpha', 1).length });
    for (const e of c.events) assert.match(e.id ?? '', /^[A-Za-z0-9_-]+$/);
    c.destroy();
  });

  it('sends a keep-alive comment at the (injected) interval', async () => {
    const clock = fakeClock(Date.UTC(2025, 0, 1));
    await mount({ keepAliveMs: 40, clock });
    const c = await connectLive(h.url('?agent=alpha'));
    for (let k = 1; k <= 3; k++) {
      clock.advance(40);
      await waitFor(`keep-alive ${k}`, () => c.comments.length === k);
    }
    assert.ok(c.comments.every((t) => t.trim() === 'keep-alive'));
    assert.equal(c.raw(), `event: system\ndata: {"system":"caught-up"}\n\n${': keep-alive\n\n'.repeat(3)}`);
    c.destroy();
  });

  it('holds a partial line until its newline and keeps multi-byte characters split across writes', async () => {
    const c = await connectLive(h.url('?agent=alpha'));
    const line = Buffer.from(rec('alpha', 7, undefined, 'größe €😀'));
    const cut = line.indexOf(Buffer.from('€')) + 1;
    appendFileSync(logFile('alpha'), line.subarray(0, cut));
    await tailers.nextCheck(logFile('alpha')); // the reader has read up to the middle of "€" and held it
    appendFileSync(logFile('alpha'), line.subarray(cut));
    appendFileSync(logFile('alpha'), rec('alpha', 8)); // a marker: the frames before it are all there is
    await waitFor('the marker', () => logs(c).some((r) => r.i === 8));
    assert.deepEqual(c.events.map((e) => e.event), ['log', 'log'], 'no frame for the partial line');
    assert.deepEqual(logs(c).map((r) => [r.i, r.extra]), [[7, 'größe €😀'], [8, '']]);
    c.destroy();
  });

  it('follows truncation and rotation with system notices', async () => {
    const c = await connectLive(h.url('?agent=alpha'));
    appendFileSync(logFile('alpha'), rec('alpha', 1) + rec('alpha', 2));
    await waitFor('two', () => logs(c).length === 2);
    truncateSync(logFile('alpha'), 0);
    appendFileSync(logFile('alpha'), rec('alpha', 3));
    await waitFor('after truncation', () => logs(c).length === 3);
    renameSync(logFile('alpha'), `${logFile('alpha')}.1`);
    writeFileSync(logFile('alpha'), rec('alpha', 4));
    await waitFor('after rotation', () => logs(c).length === 4);
    const seq = c.events.map((e) => (e.event === 'log' ? (JSON.parse(e.data) as { i: number }).i : (JSON.parse(e.data) as { system: string }).system));
    assert.deepEqual(seq, [1, 2, 'truncated', 3, 'rotated', 4]);
    assert.deepEqual(systems(c)[0], { system: 'truncated', agent: 'alpha' });
    c.destroy();
  });

  it('follows with the real EventSource client and resumes after a dropped connection with no gap and no duplicate', async () => {
    const es = new EventSource(h.url()); // both agents, multiplexed
    const got: { agent: string; i: number }[] = [];
    let errors = 0;
    let caughtUp = 0;
    es.addEventListener('log', (e) => { const r = JSON.parse(e.data) as { agentId: string; i: number }; got.push({ agent: r.agentId, i: r.i }); });
    es.addEventListener('system', (e) => { if (e.data === '{"system":"caught-up"}') caughtUp += 1; });
    es.addEventListener('error', () => { errors += 1; });
    try {
      await waitFor('caught-up', () => caughtUp === 1);
      let n = 0;
      const write = (k: number) => { for (let j = 0; j < k; j++, n++) appendFileSync(logFile(n % 2 === 0 ? 'alpha' : 'beta'), rec(n % 2 === 0 ? 'alpha' : 'beta', n)); };
      write(40);
      await waitFor('first 40', () => got.length === 40);
      for (const s of h.sockets) s.destroy(); // the server side drops the connection
      await waitFor('client noticed', () => errors > 0);
      write(40); // appended while the client is away
      await waitFor('resumed', () => got.length >= 80, 15000);
      write(20);
      await waitFor('live after resume', () => got.length >= 100);
      write(2); // one last line per agent: whatever came before them is all there is
      await waitFor('the last lines', () => got.some((g) => g.i === 100) && got.some((g) => g.i === 101));
      const seen = got.map((g) => g.i).sort((a, b) => a - b);
      assert.deepEqual(seen, Array.from({ length: 102 }, (_, i) => i), 'every line exactly once');
      for (const agent of ['alpha', 'beta']) {
        const own = got.filter((g) => g.agent === agent).map((g) => g.i);
        assert.deepEqual(own, [...own].sort((a, b) => a - b), `${agent} in file order`);
      }
      assert.equal(h.lastEventIds.length, 2);
      assert.equal(h.lastEventIds[0], undefined);
      assert.match(h.lastEventIds[1] ?? '', /^[A-Za-z0-9_-]+$/, 'the client sent Last-Event-ID');
    } finally {
      es.close();
    }
  });

  it('since: replays from byte 0, sends only ts >= since, hands over to live lines appended meanwhile exactly once', async () => {
    const base = Date.UTC(2025, 0, 1);
    let text = '';
    for (let i = 0; i < 20000; i++) text += rec('alpha', i, base + i * 1000);
    writeFileSync(logFile('alpha'), text);
    const live = await connectLive(h.url('?agent=alpha')); // a live reader exists already
    let n = 20000;
    const writer = setInterval(() => { for (let k = 0; k < 20; k++, n++) appendFileSync(logFile('alpha'), rec('alpha', n, base + n * 1000)); }, 2);
    const since = new Date(base + 15000 * 1000).toISOString();
    const c = await connect(h.url(`?agent=alpha&since=${encodeURIComponent(since)}`));
    const cMs = await connect(h.url(`?agent=alpha&since=${base + 19990 * 1000}`));
    const connectedAt = n;
    await waitFor('both replays live, with lines appended after they connected', () =>
      [c, cMs].every((x) => x.caughtUp.length === 1 && logs(x).some((r) => (r.i as number) >= connectedAt)), 15000);
    clearInterval(writer);
    const total = n;
    appendFileSync(logFile('alpha'), rec('alpha', total, base + total * 1000)); // the last line: what came before it is all there is
    await waitFor(`record ${total} on every stream`, () => [live, c, cMs].every((x) => logs(x).at(-1)?.i === total), 15000);
    const range = (from: number) => Array.from({ length: total + 1 - from }, (_, k) => from + k);
    assert.deepEqual(logs(c).map((r) => r.i), range(15000));
    assert.deepEqual(logs(cMs).map((r) => r.i), range(19990));
    assert.deepEqual(logs(live).map((r) => r.i), range(20000));
    assert.ok(total > connectedAt, 'lines were appended after the replays began');
    for (const x of [live, c, cMs]) assert.equal(x.caughtUp.length, 1, 'one caught-up frame per stream');
    // caught-up comes after every replayed record (those before the hand-over) and is never repeated
    const raw = c.raw();
    assert.ok(raw.includes('"i":19999'));
    assert.ok(raw.indexOf('"system":"caught-up"') > raw.indexOf(`"i":19999`), 'caught-up after the replayed part');
    for (const x of [live, c, cMs]) x.destroy();
  });

  it('resumes from a Last-Event-ID sent by hand, and rejects an unparseable one naming it', async () => {
    writeFileSync(logFile('alpha'), rec('alpha', 0) + rec('alpha', 1) + rec('alpha', 2));
    const first = await connect(h.url('?agent=alpha&since=0'));
    await waitFor('replay', () => logs(first).length === 3);
    first.destroy();
    const id = first.events[0]!.id!;
    const again = await connect(h.url('?agent=alpha'), { 'last-event-id': id });
    await waitFor('resumed', () => logs(again).length === 2);
    assert.deepEqual(logs(again).map((r) => r.i), [1, 2]);
    again.destroy();

    for (const bad of ['garbage!', Buffer.from('[1,["alpha",1,2]]').toString('base64url'), 'x'.repeat(12000)]) {
      const r = await connect(h.url('?agent=alpha'), { 'last-event-id': bad });
      await r.ended;
      assert.equal(r.res.statusCode, 400);
      assert.match((JSON.parse(r.raw()) as { error: string }).error, /^invalid Last-Event-ID: /);
    }
  });

  it('rejects unknown, malformed and traversal-shaped agents before touching the file system', async () => {
    writeFileSync(join(root, 'x.log'), 'SECRET\n');
    const cases = ['../x', '%2e%2e%2fx', '..%2f..%2fetc%2fpasswd', '/etc/passwd', '%2Fetc%2Fpasswd', 'Alpha', 'gamma', '', 'a'.repeat(10 * 1024), 'alpha/../beta', '..'];
    const escaped: [string, string][] = [['%00', '\\u0000'], ['alpha%00', 'alpha\\u0000'], ['alpha%0d%0aX-Evil:%201', 'alpha\\u000d\\u000aX-Evil: 1'],
      ['%E2%80%AEevil', '\\u202eevil'], ['a%E2%80%8Bb', 'a\\u200bb'], ['%ED%A0%80', '\ufffd'.repeat(3)], ['😀'.repeat(70), `${'😀'.repeat(64)}…`]];
    for (const q of [...cases, ...escaped.map(([raw]) => raw)]) {
      const r = await connect(h.url(`?agent=${q}`));
      await r.ended;
      assert.equal(r.res.statusCode, 400, q);
      assert.equal(r.res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(r.res.headers['x-evil'], undefined);
      const body = JSON.parse(r.raw()) as { error: string };
      const decoded = new URLSearchParams(`agent=${q}`).get('agent')!;
      const shown = escaped.find(([raw]) => raw === q)?.[1] ?? (decoded.length > 64 ? `${decoded.slice(0, 64)}…` : decoded);
      assert.equal(body.error, `unknown agent "${shown}"`, q);
    }
    const twice = await connect(h.url('?agent=alpha&agent=beta'));
    await twice.ended;
    assert.equal(twice.res.statusCode, 400);
    assert.deepEqual(pathCalls, [], 'no log path was even computed');

    const badSince = await connect(h.url('?agent=alpha&since=yesterday'));
    await badSince.ended;
    assert.equal(badSince.res.statusCode, 400);
    assert.match((JSON.parse(badSince.raw()) as { error: string }).error, /^invalid since: /);
  });

  it('never serves another file through a symlinked or hard-linked log file', async () => {
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, JSON.stringify({ agentId: 'x', ts: '2025-01-01T00:00:00.000Z', level: 'info', event: 'TOP-SECRET' }) + '\n');
    rmSync(logFile('alpha'));
    symlinkSync(secret, logFile('alpha'));
    rmSync(logFile('beta'));
    linkSync(secret, logFile('beta'));
    const c = await connect(h.url('?since=0'));
    await waitFor('two tailer errors', () => systems(c).length === 2);
    appendFileSync(secret, JSON.stringify({ event: 'MORE-SECRET' }) + '\n');
    // Both readers looked at their path again since the target grew ...
    await Promise.all([tailers.nextCheck(logFile('alpha')), tailers.nextCheck(logFile('beta'))]);
    // ... and then a regular file takes alpha's path: its record is the first and only one sent.
    rmSync(logFile('alpha'));
    writeFileSync(logFile('alpha'), rec('alpha', 1));
    await waitFor('the regular file', () => logs(c).length === 1);
    assert.deepEqual(logs(c).map((r) => r.i), [1]);
    assert.doesNotMatch(c.raw(), /SECRET/);
    assert.deepEqual(systems(c).sort((a, b) => String(a.agent).localeCompare(String(b.agent))), [
      { system: 'tailer-error', agent: 'alpha' }, { system: 'tailer-error', agent: 'beta' },
    ]);
    c.destroy();
  });

  it('ends the stream with token-expired when the token expires', async () => {
    const clock = fakeClock(Date.UTC(2025, 0, 1));
    await mount({ clock });
    const c = await connectLive(h.url('?agent=alpha'), { 'x-test-expires-in': '300' });
    let ended = false;
    void c.ended.then(() => { ended = true; });
    appendFileSync(logFile('alpha'), rec('alpha', 1));
    await waitFor('line 1', () => logs(c).length === 1);
    clock.advance(299);
    appendFileSync(logFile('alpha'), rec('alpha', 2)); // 1 ms before the expiry the stream still carries lines
    await waitFor('line 2 (or the end)', () => logs(c).length === 2 || ended);
    assert.equal(ended, false, 'still open 1 ms before the expiry');
    clock.advance(1);
    await within(c.ended, 'the stream to end at the expiry');
    assert.deepEqual(c.events.map((e) => e.event), ['log', 'log', 'system']);
    assert.deepEqual(systems(c), [{ system: 'token-expired' }]);
    await waitFor('unsubscribed', () => tailers.stats().subscribers === 0);

    const already = await connect(h.url('?agent=alpha'), { 'x-test-expires-in': '-1' });
    await already.ended;
    assert.deepEqual(systems(already), [{ system: 'token-expired' }]);
  });

  it('a client that stops reading gets dropped frames of 1024, one per overflow, with memory bounded', async (t) => {
    const c = await connectLive(h.url('?agent=alpha'));
    c.res.pause(); // stops reading the socket: the kernel buffers fill, then res.write() says no
    const pad = 'p'.repeat(900);
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    const sample = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 5);
    const total = 60000; // ~60 MB of log
    for (let i = 0; i < total; i += 500) {
      let chunk = '';
      for (let k = i; k < i + 500; k++) chunk += rec('alpha', k, undefined, pad);
      appendFileSync(logFile('alpha'), chunk);
      await tailers.nextCheck(logFile('alpha')); // read and handed to the stream while the client is stalled
    }
    clearInterval(sample);
    gc();
    const retainedMb = (process.memoryUsage().heapUsed - before.heapUsed) / 2 ** 20;
    c.res.resume();
    const counted = () => logs(c).length + systems(c).reduce((s, x) => s + (x.system === 'dropped' ? Number(x.count) : 0), 0);
    await waitFor('all lines accounted for', () => counted() >= total, 30000);
    const dropped = systems(c).filter((x) => x.system === 'dropped');
    assert.ok(dropped.length >= 10, `overflowed several times (${dropped.length})`);
    assert.ok(dropped.every((d) => d.count === 1024), 'each dropped frame counts 1024');
    assert.equal(counted(), total, 'received + dropped = appended');
    const ids = logs(c).map((r) => r.i as number);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in order');
    const rssMb = (peakRss - before.rss) / 2 ** 20;
    t.diagnostic(`${dropped.length} dropped frames, ${logs(c).length} log frames; heap retained while stalled +${retainedMb.toFixed(1)} MB, peak rss +${rssMb.toFixed(1)} MB`);
    assert.ok(retainedMb < 8, `heap retained ${retainedMb.toFixed(1)} MB with 60 MB appended to a stalled client`);
    assert.ok(rssMb < 128, `rss grew ${rssMb.toFixed(1)} MB for 60 MB appended`);
    c.destroy();
  });

  it('100 clients connect and disconnect: no reader, watcher, timer or request left behind', async () => {
    await mount({ keepAliveMs: 20 });
    const count = (type: string) => process.getActiveResourcesInfo().filter((t) => t === type).length;
    // Nothing subscribes before this test: wait until what earlier tests closed is released.
    await waitFor('earlier watchers and reads released', () => count('FSEventWrap') === 0 && count('FSReqCallback') === 0);
    const base = { w: count('FSEventWrap'), t: count('Timeout'), r: count('FSReqCallback') };
    const clients: RawClient[] = [];
    for (let i = 0; i < 100; i++) {
      const q = ['', '?agent=alpha', '?agent=beta&since=0', '?since=0'][i % 4]!;
      clients.push(await connect(h.url(q)));
    }
    await waitFor('150 subscriptions (multiplexed clients hold two)', () => tailers.stats().subscribers === 150);
    assert.equal(tailers.stats().files, 2);
    appendFileSync(logFile('alpha'), rec('alpha', 1));
    await waitFor('fan-out', () => clients.filter((c, i) => i % 4 !== 2).every((c) => logs(c).length === 1));
    clients.forEach((c, i) => { if (i % 2 === 0) c.destroy(); else c.res.socket?.resetAndDestroy(); });
    await waitFor('registry empty', () => tailers.stats().subscribers === 0 && tailers.stats().files === 0);
    await waitFor(`resources back to baseline: ${JSON.stringify(process.getActiveResourcesInfo())}`, () => count('FSEventWrap') === base.w && count('Timeout') === base.t && count('FSReqCallback') === base.r);
  });
});
