/**
 * Property-based fuzz of the control plane's query parameters (contract §5, §6, §11): the real
 * listener (server.ts, built by startControlPlane with every route) over a real SQLite store and real
 * log files, asked over raw TCP so that any byte can reach the request line — arbitrary strings,
 * numbers, repeated keys, unicode, control characters, huge values and percent-encoding edge cases in
 * every parameter of /events, /dlq, /audit (verify included) and /logs (agent, since, Last-Event-ID).
 *
 * Properties: every request is answered, within a deadline, with one of 2xx, 400, 401, 404, 405, 413
 * (a /logs stream is closed as soon as its head arrives); a route's 400 is a JSON `{"error"}`;
 * nothing reaches the daemon's error report; and the rows stored before the fuzz are all still listed
 * afterwards, every page walked. Runs are bounded (`numRuns`) and seeded: a failure prints the seed
 * and the path to replay it (FUZZ_SEED=<seed> reruns the same cases).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { ControlPlaneSettings } from '../src/config/control-plane.js';
import { systemClock } from '../src/core/clock.js';
import { createMetrics } from '../src/metrics/registry.js';
import { createSourceStats } from '../src/metrics/source-stats.js';
import { startControlPlane } from '../src/control-plane/start-control-plane.js';
import type { RunningControlPlane } from '../src/control-plane/start-control-plane.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { waitFor, within } from './support/wait.js';

const SEED = Number(process.env.FUZZ_SEED ?? 1_147_031);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 150);
const REQUEST_DEADLINE_MS = 15_000;
const ALLOWED = new Set([400, 401, 404, 405, 413]);
const T0 = Date.UTC(2024, 0, 1);
const AGENTS = ['agent-a', 'agent-b'];

interface Answer { status: number; head: string; body: string }

/**
 * One request over a fresh connection, bytes as given. A stream (`stream: true`) is closed as soon as
 * its head has arrived (so is an answer to HEAD); any other answer is read to its end (Connection: close).
 */
function rawRequest(port: number, request: Buffer, stream: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      const all = Buffer.concat(chunks).toString('latin1');
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) {
        settled = true;
        reject(new Error(`connection ended without a complete answer head: ${JSON.stringify(all.slice(0, 200))}`));
        return;
      }
      const head = all.slice(0, end);
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1] ?? NaN);
      settled = true;
      resolve({ status, head, body: Buffer.concat(chunks).subarray(Buffer.byteLength(all.slice(0, end + 4), 'latin1')).toString('utf8') });
    };
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      if (stream && Buffer.concat(chunks).includes('\r\n\r\n')) {
        finish();
        socket.destroy();
      }
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err) => { if (!settled) { settled = true; reject(err); } });
    // Not end(): a half-closed connection may be dropped before the answer; Connection: close ends it.
    socket.write(request);
  });
}

// ---- generators -------------------------------------------------------------------------------

/** Texts that probe the parsers: numbers at the edges of Date and Number, odd ISO forms, traversal, prototype keys. */
const EDGE_TEXTS = [
  '', ' ', '0', '1', '-1', '+1', '1.5', '1e3', '0x10', '1000', '1001', '9999999', '00000000001',
  '8640000000000000', '8640000000000001', '9999999999999999', '99999999999999999999', '9007199254740993',
  'NaN', 'Infinity', '-0', '１２３', 'asc', 'desc', 'ASC', ' asc', 'true', 'null', 'undefined',
  '2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z', '2024-02-30T00:00:00Z', '2024-13-01T00:00:00Z',
  '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z', '2024-01-01T00:00:00+99:99',
  '2024-01-01T25:61:61Z', '2024-01-01T00:00:00.1234567891Z', '2024-01-01', '1970-01-01T00:00:00-00:01',
  'agent-a', 'agent-b', 'agent-z', '../agent-a', '..%2fagent-a', '/etc/passwd', 'agent-a\u0000', 'A'.repeat(64), 'a'.repeat(65),
  '__proto__', 'constructor', 'hasOwnProperty', 'am', 'webhook', 'delivery-failed', 'dispatch.done',
];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_TEXTS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double()).map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 9 }).chain((k) => fc.string({ minLength: 1000 * k, maxLength: 1000 * k })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('base64url')) },
);

/** Percent-encoding edge cases spliced into an encoded text. */
const PERCENT_EDGES = ['%', '%2', '%zz', '%G0', '%00', '%0a', '%0D%0A', '%FF', '%C0%AF', '%E2%82', '%ED%A0%80', '%F4%90%80%80', '%25', '%2B', '%26', '%3D', '+', '%20'];

/** How a text goes into the request target: encoded, raw bytes, or encoded with a broken escape spliced in. */
const encoded = (value: string): fc.Arbitrary<Buffer> => fc.oneof(
  fc.constant(Buffer.from(encodeComponent(value), 'latin1')),
  fc.constant(Buffer.from(value, 'utf8')),
  fc.tuple(fc.nat(), fc.constantFrom(...PERCENT_EDGES)).map(([at, edge]) => {
    const e = encodeComponent(value);
    const i = e.length === 0 ? 0 : at % (e.length + 1);
    return Buffer.from(`${e.slice(0, i)}${edge}${e.slice(i)}`, 'latin1');
  }),
);

/** encodeURIComponent, except that a lone surrogate (which it refuses) goes out as its UTF-8 replacement. */
function encodeComponent(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((b) => (/[A-Za-z0-9_.!~*'()-]/.test(String.fromCharCode(b))
    ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

const VIEW_PARAMS: Record<string, readonly string[]> = {
  '/events': ['limit', 'cursor', 'order', 'since', 'until', 'agent', 'source', 'kind'],
  '/dlq': ['limit', 'cursor', 'order', 'since', 'until', 'agent', 'source', 'reason'],
  '/audit': ['limit', 'cursor', 'order', 'since', 'until', 'kind', 'agent', 'verify'],
  '/logs': ['agent', 'since'],
};
const ALL_PARAMS = [...new Set(Object.values(VIEW_PARAMS).flat())];

/** A value that parses, so the fuzz also reaches the store and the tailers with odd but valid input. */
function validValue(name: string, cursors: readonly string[]): fc.Arbitrary<string> {
  switch (name) {
    case 'limit': return fc.integer({ min: 1, max: 1000 }).map(String);
    case 'order': return fc.constantFrom('asc', 'desc');
    case 'verify': return fc.constant('1');
    case 'since':
    case 'until': return fc.oneof(
      fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.maxSafeInteger()).map(String),
      fc.date({ min: new Date(-62_135_596_800_000), max: new Date(253_402_300_799_999), noInvalidDate: true }).map((d) => d.toISOString()),
    );
    case 'cursor': return fc.oneof(
      fc.constantFrom(...cursors),
      // Well-formed JSON in the cursor's envelope, with any key, order and version.
      fc.record({ v: fc.oneof(fc.constant(1), fc.integer(), fc.string()), k: fc.oneof(fc.nat(), fc.maxSafeInteger(), fc.integer(), fc.double(), fc.string()),
        o: fc.oneof(fc.constantFrom('asc', 'desc'), fc.string()) }, { requiredKeys: [] })
        .map((c) => Buffer.from(JSON.stringify(c)).toString('base64url')),
      fc.tuple(fc.constantFrom(...cursors), fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })).map(([c, at, ch]) => `${c.slice(0, at % c.length)}${ch}${c.slice(at % c.length + 1)}`),
    );
    default: return fc.constantFrom('agent-a', 'agent-b', 'am', 'grafana', 'webhook', 'heartbeat', 'delivery-failed', 'event.accepted');
  }
}

/** One query: a list of (name, value) pairs, names known or not, repeated or not, joined with odd separators. */
function query(route: string, cursors: readonly string[]): fc.Arbitrary<Buffer> {
  const known = VIEW_PARAMS[route] ?? [];
  const pair = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...known).chain((name) => fc.tuple(fc.constant(name), fc.oneof(validValue(name, cursors), text))) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...ALL_PARAMS), text), text) },
  ).chain(([name, value]) => fc.tuple(encoded(name), encoded(value), fc.constantFrom('=', '', '==')));
  return fc.tuple(fc.array(pair, { maxLength: 6 }), fc.constantFrom('&', '&', '&', ';', '&&'), fc.constantFrom('?', '?', '??', '?&'))
    .map(([pairs, sep, lead]) => {
      if (pairs.length === 0) return Buffer.alloc(0);
      const parts = pairs.map(([n, v, eq]) => Buffer.concat([n, Buffer.from(eq), eq === '' ? Buffer.alloc(0) : v]));
      return Buffer.concat([Buffer.from(lead), ...parts.flatMap((p, i) => (i === 0 ? [p] : [Buffer.from(sep), p]))]);
    });
}

/** Last-Event-ID values: junk, base64url junk, well-formed resume ids with arbitrary positions, and positions in the real files. */
const lastEventId = (files: ReadonlyArray<{ agent: string; ino: number; size: number }>): fc.Arbitrary<string> => fc.oneof(
  text,
  fc.array(fc.constantFrom(...files).chain(({ agent, ino, size }) => fc.integer({ min: 0, max: size + 8 })
    .chain((end) => fc.tuple(fc.constant(agent), fc.constant(ino), fc.constant(end), fc.integer({ min: 0, max: end }), fc.nat(0xffff_ffff)))), { maxLength: 3 })
    .map((entries) => Buffer.from(JSON.stringify([1, ...entries])).toString('base64url')),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64url')),
  fc.array(fc.tuple(fc.constantFrom('agent-a', 'agent-b', 'agent-z', 'Agent', ''), fc.oneof(fc.nat(), fc.maxSafeInteger(), fc.double()),
    fc.oneof(fc.nat(), fc.maxSafeInteger()), fc.oneof(fc.nat(), fc.maxSafeInteger()), fc.oneof(fc.nat(0xffff_ffff), fc.integer())), { maxLength: 4 })
    .chain((entries) => fc.constantFrom(1, 0, 2, '1').map((version) => Buffer.from(JSON.stringify([version, ...entries])).toString('base64url'))),
);

/** Header values cannot carry CR or LF without becoming other headers; everything else goes as bytes. */
const headerBytes = (value: string): Buffer => Buffer.from(value.replace(/[\r\n]/g, ''), 'utf8');

function request(route: string, cursors: readonly string[], files: ReadonlyArray<{ agent: string; ino: number; size: number }>):
  fc.Arbitrary<{ bytes: Buffer; stream: boolean; what: string }> {
  const headers = route === '/logs'
    ? fc.array(lastEventId(files), { maxLength: 2 }).map((ids) => ids.map((id) => Buffer.concat([Buffer.from('Last-Event-ID: '), headerBytes(id), Buffer.from('\r\n')])))
    : fc.constant([] as Buffer[]);
  return fc.tuple(query(route, cursors), headers, fc.constantFrom('GET', 'GET', 'GET', 'HEAD')).map(([q, h, method]) => {
    const bytes = Buffer.concat([
      Buffer.from(`${method} ${route}`), q, Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n'),
      ...(route === '/logs' ? [Buffer.from('Accept: text/event-stream\r\n')] : []), ...h, Buffer.from('\r\n'),
    ]);
    // A stream, and any answer to HEAD (it has no body), is complete with its head.
    return { bytes, stream: route === '/logs' || method === 'HEAD', what: bytes.toString('latin1').slice(0, 2000) };
  });
}

// ---- the daemon's side ------------------------------------------------------------------------

/** Every item of a view, every page followed (limit 7: several pages), as `id` or `seq` strings. */
async function walk(port: number, view: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const target: string = `${view}?limit=7${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const a: Answer = await within(rawRequest(port, Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), false), `GET ${target}`);
    assert.equal(a.status, 200, a.body);
    const body = JSON.parse(a.body) as { items: Array<{ id?: string; seq?: number }>; nextCursor: string | null };
    keys.push(...body.items.map((i) => String(i.id ?? i.seq)));
    if (body.nextCursor === null) return keys;
    cursor = body.nextCursor;
  }
  assert.fail(`${view}: the walk does not end`);
}

/** The cursors of every page of a view (for the generators). */
async function cursorsOf(port: number, view: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const target: string = `${view}?limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const a: Answer = await rawRequest(port, Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), false);
    cursor = (JSON.parse(a.body) as { nextCursor: string | null }).nextCursor;
    if (cursor !== null) out.push(cursor);
  } while (cursor !== null);
  return out;
}

describe('control-plane query fuzz (contract §5, §6, §11)', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-query-fuzz-'));
  const reports: string[] = [];
  let store: Store;
  let cp: RunningControlPlane;
  let port = 0;
  const before_: Record<string, string[]> = {};
  const cursors: Record<string, string[]> = {};

  before(async () => {
    store = await openSqliteStore({ path: join(root, 'svc.db') });
    for (let i = 0; i < 24; i++) {
      const r = await store.ingestEvent({ agentId: AGENTS[i % 2]!, sourceId: i % 3 === 0 ? 'grafana' : 'am', kind: i % 4 === 0 ? 'heartbeat' : 'webhook',
        fingerprint: i % 2 === 0 ? `fp-${i}` : null, payloadText: JSON.stringify({ i, text: 'é€"\n\u2028' }) }, T0 + i * 1000);
      assert.equal(r.outcome, 'accepted');
    }
    // Dead letters the way the dispatcher makes them: claim, dead-letter some, release the rest.
    for (const agentId of AGENTS) {
      const claimed = await store.claimEvents({ owner: 'fuzz', agentId, limit: 100, maxBytes: 1 << 30, leaseMs: 60_000, nowMs: T0 + 60_000 });
      await store.completeEvents(claimed.map((c, i) => (i % 3 === 0
        ? { claim: c.claim, outcome: 'dead-lettered' as const, deadLetter: { reason: 'delivery-failed', error: 'HTTP 503', attempts: 3 }, audit: [] }
        : { claim: c.claim, outcome: 'released' as const })), T0 + 61_000);
    }
    for (let i = 0; i < 15; i++) {
      await store.appendAudit({ kind: i % 2 === 0 ? 'event.accepted' : 'dispatch.done', actor: 'source:am', agentId: AGENTS[i % 2] ?? null,
        data: { i, note: 'é€"\n' } }, T0 + 100_000 + i);
    }
    for (const agent of AGENTS) {
      writeFileSync(join(root, `${agent}.log`), Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({ agentId: agent, ts: new Date(T0 + i * 1000).toISOString(), level: 'info', event: 'x', i })).join('\n').concat('\n'));
    }
    const settings: ControlPlaneSettings = { enabled: true, bind: '127.0.0.1', port: 0, auth: null, allowRemote: false, maxConnections: 128, publicUrl: null };
    const running = await startControlPlane({
      settings, store,
      metrics: createMetrics({ stats: createSourceStats(), agents: AGENTS.map((id) => ({ id, sources: ['am', 'grafana'] })) }),
      snapshot: () => '{}',
      agents: () => AGENTS,
      logPath: (agent) => join(root, `${agent}.log`),
      clock: systemClock,
      report: (line) => { reports.push(line); },
      readiness: () => Promise.resolve({ ready: true, reasons: [] }),
    });
    assert.ok(running);
    cp = running;
    port = cp.port();
    for (const view of ['/events', '/dlq', '/audit']) {
      before_[view] = await walk(port, view);
      cursors[view] = await cursorsOf(port, view);
      assert.ok((before_[view]?.length ?? 0) > 7 && (cursors[view]?.length ?? 0) > 0, view);
    }
  });
  after(async () => {
    await cp.close();
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const [index, route] of ['/events', '/dlq', '/audit', '/logs'].entries()) {
    it(`${route}: every answer is 2xx, 400, 401, 404, 405 or 413, in time`, async () => {
      const statuses = new Map<number, number>();
      // Cursors of every view: another view's cursor, or one of the other order, is hostile input too.
      const known = Object.values(cursors).flat();
      const files = AGENTS.map((agent) => {
        const st = statSync(join(root, `${agent}.log`));
        return { agent, ino: st.ino, size: st.size };
      });
      await fc.assert(fc.asyncProperty(request(route, known, files), async ({ bytes, stream, what }) => {
        const a = await within(rawRequest(port, bytes, stream), `an answer to ${JSON.stringify(what)}`, REQUEST_DEADLINE_MS);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        assert.ok((a.status >= 200 && a.status < 300) || ALLOWED.has(a.status), `HTTP ${a.status} for ${JSON.stringify(what)}:\n${a.head}\n${a.body.slice(0, 500)}`);
        // A route's refusal is `{"error": …}` (a request the HTTP parser refused has no body at all).
        if (a.status === 400 && /content-type: application\/json/i.test(a.head) && !bytes.toString('latin1').startsWith('HEAD')) {
          const body = JSON.parse(a.body) as { error?: unknown };
          assert.equal(typeof body.error, 'string', a.body);
          // It names the parameter; it never echoes a huge value or characters that could rewrite a terminal or a log line.
          const error = body.error as string;
          assert.ok(error.length <= 300 && !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u.test(error), JSON.stringify(error));
        }
        assert.deepEqual(reports, [], 'nothing went to the daemon error report');
      }), { numRuns: RUNS_PER_ROUTE, seed: SEED + index, endOnFailure: false });
      // The fuzz reached past the parser: some requests were answered 200.
      assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, JSON.stringify([...statuses]));
    });
  }

  it('the /logs streams of the fuzz released their log files', async () => {
    // Every stream was closed at its head: its tail, and the file it read, must be gone.
    const logFds = (): number => readdirSync('/proc/self/fd').filter((fd) => {
      try { return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(root, 'agent-')); } catch { return false; }
    }).length;
    await waitFor('no log file held open', () => logFds() === 0);
    // The instrument sees a stream's files: one held open shows up, and goes when it closes.
    const held = connect(port, '127.0.0.1');
    held.write('GET /logs HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
    await waitFor('a held stream to read the log files', () => logFds() === AGENTS.length);
    held.destroy();
    await waitFor('the held stream to release them', () => logFds() === 0);
  });

  it('every row stored before the fuzz is still listed, every page walked', async () => {
    for (const view of ['/events', '/dlq', '/audit']) assert.deepEqual(await walk(port, view), before_[view], view);
    assert.deepEqual(reports, []);
  });
});
