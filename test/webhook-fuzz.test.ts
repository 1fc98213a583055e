/**
 * Property-based fuzz of webhook bodies (contract §11.1): the built daemon (`svc up -d`, the
 * alert-escalation agent) and its Alertmanager source over real HTTP. Bodies are arbitrary JSON
 * values, Alertmanager-shaped notifications with arbitrary labels, deep and wide nesting around the
 * depth limit, broken and truncated JSON, arbitrary bytes (invalid UTF-8 included) and bodies over
 * the 1 MiB limit; each is signed correctly, signed wrongly or not signed, with or without a
 * fingerprint header (valid or not), mostly POSTed to the source, sometimes to another path or with
 * another method.
 *
 * Properties: every request is answered in time with 2xx, 400, 401, 404, 405 or 413 — never a 5xx; a
 * 202 or 200 names its eventId; a correctly signed, well-formed object is accepted (202 or, for a
 * repeated fingerprint, 200 with the first eventId). Afterwards every accepted event is listed by
 * /events (every page walked) and has left `accepted`/`processing` (delivered or dead-lettered), and
 * the daemon's rejection counter adds up to the rejections seen. Seeded (FUZZ_SEED, FUZZ_RUNS).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import fc from 'fast-check';
import { checkJsonShape } from '../src/core/json-shape.js';
import { sign } from './support/http.js';
import { startDaemon } from './support/daemon.js';
import type { Daemon } from './support/daemon.js';
import { waitFor, within } from './support/wait.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const MAX_BODY = 1024 * 1024;
const ALLOWED = new Set([400, 401, 404, 405, 413]);

interface Case {
  body: Buffer;
  signature: 'good' | 'bad' | 'none';
  fingerprint: string | null;
  path: 'source' | 'other';
  method: string;
}

interface Answer { status: number; body: string }

/** One request on a connection of its own; an early answer (413) is read even if the body was not all sent. */
function send(url: string, c: Case, secret: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(c.body.length), connection: 'close' };
  if (c.signature === 'good') headers['x-signature'] = sign(secret, c.body);
  if (c.signature === 'bad') headers['x-signature'] = sign(`${secret}x`, c.body);
  if (c.fingerprint !== null) headers['x-alert-fingerprint'] = c.fingerprint;
  return new Promise((resolve, reject) => {
    let answer: Answer | null = null;
    const req = request(url, { method: c.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        answer = { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') };
        resolve(answer);
      });
      res.on('error', reject);
    });
    // A server that answers before the whole body arrived (413) may reset the upload: the answer counts.
    req.on('error', (err) => (answer === null ? reject(err) : resolve(answer)));
    req.end(c.body);
  });
}

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Header-safe strings (what Node's HTTP client sends): printable ASCII and Latin-1, spaces, no DEL. */
const headerText = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)),
  maxLength: 240,
});

const alertmanager = fc.record({
  version: fc.constantFrom('4', '3', 'x'),
  status: fc.oneof(fc.constantFrom('firing', 'resolved'), fc.string()),
  receiver: fc.string(),
  groupKey: fc.string(),
  commonLabels: fc.dictionary(fc.string(), fc.string()),
  alerts: fc.array(fc.record({
    status: fc.constantFrom('firing', 'resolved'),
    labels: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
    annotations: fc.dictionary(fc.string(), fc.string()),
    startsAt: fc.oneof(fc.constant('2026-11-23T10:00:00Z'), fc.string()),
    fingerprint: fc.string(),
  }, { requiredKeys: ['labels'] }), { maxLength: 20 }),
}, { requiredKeys: [] });

/** Brackets opened `depth` deep inside a top-level object (the limit is 64, the object is level 1). */
const nested = fc.tuple(fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 20_000 })), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([depth, open, closed]) => {
  const close = open === '[' ? ']' : '}';
  return text(`{"deep":${open.repeat(depth)}1${closed ? close.repeat(depth) : ''}}`);
});

const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: alertmanager.map((v) => text(JSON.stringify(v))) },
  { weight: 3, arbitrary: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 8 })).map((v) => text(JSON.stringify(v))) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 8 }).map((v) => text(JSON.stringify(v))) },
  { weight: 2, arbitrary: nested },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 60_000 }).map((n) => text(JSON.stringify({ alerts: new Array<unknown>(n).fill({}) }))) },
  { weight: 2, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.nat()).map(([v, cut]) => {
    const s = JSON.stringify({ v });
    return text(s.slice(0, cut % s.length));
  }) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 16 }), fc.integer({ min: 0, max: 4 })).map(([junk, at]) =>
    Buffer.concat([text('{"a":"'), Buffer.from(junk).subarray(0, at), Buffer.from([0xc3, 0x28, 0xff]), text('"}')])) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 64 * 1024 }).map((extra) => Buffer.alloc(MAX_BODY + extra, 0x20)) },
);

const kase: fc.Arbitrary<Case> = fc.record({
  body,
  signature: fc.oneof({ weight: 8, arbitrary: fc.constant('good' as const) }, { weight: 1, arbitrary: fc.constantFrom('bad' as const, 'none' as const) }),
  fingerprint: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: headerText },
    { weight: 1, arbitrary: fc.constantFrom('fp-repeated-1', 'fp-repeated-2') }),
  path: fc.oneof({ weight: 12, arbitrary: fc.constant('source' as const) }, { weight: 1, arbitrary: fc.constant('other' as const) }),
  method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'GET', 'DELETE', 'PATCH') }),
});

/** What the answer must be, when it is determined by the request alone (else null: any allowed answer). */
function expectedStatus(c: Case): number[] | null {
  if (c.path === 'other') return [404];
  if (c.method !== 'POST') return [405];
  if (c.body.length > MAX_BODY) return [413];
  if (c.signature !== 'good') return [401];
  // HTTP drops the spaces and tabs around a header value; what remains must be 1–200 printable ASCII.
  const fingerprintOk = c.fingerprint === null || /^[\x20-\x7e]{1,200}$/.test(c.fingerprint.replace(/^[ \t]+|[ \t]+$/g, ''));
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(c.body);
  } catch {
    return [400];
  }
  if (!checkJsonShape(decoded).ok) return [400];
  return fingerprintOk ? [202, 200] : [400];
}

describe('webhook body fuzz (contract §11.1)', () => {
  let d: Daemon;
  const accepted = new Map<string, string>(); // eventId → first answer
  const repeated = new Map<string, string>(); // fingerprint → eventId
  const statuses = new Map<number, number>();

  before(async () => { d = await startDaemon(); });
  after(async () => { await d.stop(); });

  it('every answer is 2xx, 400, 401, 404, 405 or 413, in time, and the one the request calls for', async (t) => {
    const rejectedBefore = await rejected(d.cp);
    await fc.assert(fc.asyncProperty(kase, async (c) => {
      const url = c.path === 'source' ? d.url : d.url.replace('/webhooks/alertmanager', '/webhooks/not-a-source');
      const a = await within(send(url, c, d.secret), `${c.method} ${c.path} (${c.body.length} bytes)`);
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      assert.ok((a.status >= 200 && a.status < 300) || ALLOWED.has(a.status), `answer ${a.status}: ${a.body.slice(0, 200)}`);
      const expected = expectedStatus(c);
      if (expected !== null) assert.ok(expected.includes(a.status), `expected ${expected.join(' or ')}, got ${a.status}: ${a.body.slice(0, 200)}`);
      if (a.status === 202 || a.status === 200) {
        const eventId = String((JSON.parse(a.body) as { eventId?: unknown }).eventId);
        assert.match(eventId, /^[0-9a-f-]{36}$/);
        if (a.status === 202) accepted.set(eventId, a.body);
        if (c.fingerprint !== null && c.fingerprint.startsWith('fp-repeated-')) {
          const first = repeated.get(c.fingerprint);
          if (first === undefined) repeated.set(c.fingerprint, eventId);
          else assert.equal(eventId, first, 'a repeated fingerprint names the first event');
        }
      }
    }), { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true });

    // The rejections the daemon counted are exactly the ones answered.
    const counted = (await rejected(d.cp)) - rejectedBefore;
    const answered = [...statuses].reduce((n, [status, count]) => n + (status >= 400 ? count : 0), 0);
    assert.equal(counted, answered, `svc_webhook_rejected_total grew by ${counted}; ${answered} rejections answered`);
    t.diagnostic(`answers: ${JSON.stringify(Object.fromEntries(statuses))}; ${accepted.size} events accepted`);
    // The generators reach every outcome (else the property above proves less than it says).
    for (const s of [202, 400, 401, 404, 405, 413]) assert.ok((statuses.get(s) ?? 0) > 0, `no ${s} among ${JSON.stringify([...statuses])}`);
  });

  it('every accepted event is listed and finished (delivered or dead-lettered)', async () => {
    assert.ok(accepted.size > 0);
    await waitFor('every accepted event listed and finished', async () => {
      const listed = await allEvents(d.cp);
      const open = [...accepted.keys()].filter((id) => {
        const status = listed.get(id);
        return status === undefined || status === 'accepted' || status === 'processing';
      });
      return open.length === 0 ? true : undefined;
    }, 120_000);
  });
});

async function rejected(cp: string): Promise<number> {
  const text = await (await fetch(`${cp}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('svc_webhook_rejected_total{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Every event /events lists, id → status, every page walked. */
async function allEvents(cp: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await fetch(`${cp}/events?limit=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    assert.equal(res.status, 200);
    const page = (await res.json()) as { items: Array<{ id: string; status: string }>; nextCursor: string | null };
    for (const item of page.items) out.set(item.id, item.status);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
  assert.fail('/events: the walk does not end');
}
