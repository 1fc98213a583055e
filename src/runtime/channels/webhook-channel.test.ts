import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { webhookChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { parseRetryAfter } from './http-channel.js';
import { createWebhookChannel } from './webhook-channel.js';
import { waitFor } from '../../../test/support/wait.js';

const NOW = Date.parse('2026-11-21T03:12:00.000Z');
const message: OutboundMessage = {
  eventId: 'evt-7', agentId: 'oncall', severity: 'P1', status: 'resolved', title: 'HighLatency on api-1',
  text: '[P1] RESOLVED: HighLatency on api-1',
  triagedBy: 'rules',
  deliveryId: 'evt-7.dm',
  attempt: 1,
};

interface Reply { status: number; headers?: Record<string, string>; body?: string; hang?: boolean }
interface Seen { method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders; body: string }

function receiver(): { server: Server; seen: Seen[]; reply: { next: Reply } } {
  const seen: Seen[] = [];
  const reply = { next: { status: 204 } as Reply };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const r = reply.next;
      if (r.hang) return;
      res.writeHead(r.status, r.headers ?? {});
      res.end(r.body ?? '');
    });
  });
  return { server, seen, reply };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('webhook channel against a local receiver', () => {
  const r = receiver();
  let port = 0;
  before(async () => { port = await listen(r.server); });
  after(() => new Promise<void>((resolve) => { r.server.closeAllConnections(); r.server.close(() => resolve()); }));
  beforeEach(() => { r.seen.length = 0; r.reply.next = { status: 204 }; });

  const channel = (timeoutMs = 2000, path = '/hooks/T0KEN-in-path', clock = fakeClock(NOW)) => createWebhookChannel(
    webhookChannelSchema.parse({ id: 'oncall-hook', type: 'webhook', direction: 'outbound',
      url: `http://127.0.0.1:${port}${path}`, timeoutMs }),
    { clock });
  const send = (c = channel()) => c.send(message, new AbortController().signal);

  it('a page message with links: the links field, and the text with both links below it (§18.6)', async () => {
    const links = { ack: 'https://svc.example.com/ack/v1.a.b', resolve: 'https://svc.example.com/ack/v1.c.d' };
    assert.equal((await channel().send({ ...message, status: 'firing', pageId: 'p0123456789ab', links }, new AbortController().signal)).ok, true);
    const body = JSON.parse(r.seen[0]?.body ?? '') as Record<string, unknown>;
    assert.deepEqual(body.links, links);
    assert.equal(body.text, '[P1] RESOLVED: HighLatency on api-1\n\nAcknowledge: https://svc.example.com/ack/v1.a.b\nResolve: https://svc.example.com/ack/v1.c.d');
  });

  it('POSTs the file-line object as JSON; 2xx is ok', async () => {
    assert.deepEqual(await send(), { ok: true, detail: { httpStatus: '204' } });
    const seen = r.seen[0];
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.url, '/hooks/T0KEN-in-path');
    assert.equal(seen?.headers['content-type'], 'application/json');
    assert.equal(seen?.headers['idempotency-key'], 'evt-7.dm', 'the deliveryId, the same on every retry and later claim');
    assert.deepEqual(JSON.parse(seen?.body ?? ''), {
      ts: '2026-11-21T03:12:00.000Z', channel: 'oncall-hook', to: 'on-call', eventId: 'evt-7', agentId: 'oncall',
      severity: 'P1', status: 'resolved', title: 'HighLatency on api-1', text: '[P1] RESOLVED: HighLatency on api-1',
      triagedBy: 'rules', deliveryId: 'evt-7.dm',
    });
  });

  it('500 → retryable, with a bounded snippet of the body', async () => {
    r.reply.next = { status: 500, body: `oops\n${'x'.repeat(5000)}` };
    const c = channel();
    const result = await send(c);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, true);
    assert.equal(result.retryAfterMs, undefined);
    assert.match(result.error, /^HTTP 500: oops x+…$/);
    assert.ok(result.error.length < 300);
    assert.equal(c.ready(), false);
    r.reply.next = { status: 200 };
    assert.equal((await send(c)).ok, true);
    assert.equal(c.ready(), true);
  });

  it('400 → not retryable', async () => {
    r.reply.next = { status: 400, body: '{"error":"bad payload"}' };
    const result = await send();
    assert.deepEqual(result, { ok: false, retryable: false, error: 'HTTP 400: {"error":"bad payload"}' });
  });

  it('429 with Retry-After seconds → retryAfterMs', async () => {
    r.reply.next = { status: 429, headers: { 'Retry-After': '3' } };
    assert.deepEqual(await send(), { ok: false, retryable: true, error: 'HTTP 429', retryAfterMs: 3000 });
  });

  it('503 with Retry-After HTTP-date → retryAfterMs against the clock', async () => {
    r.reply.next = { status: 503, headers: { 'Retry-After': new Date(NOW + 10_000).toUTCString() } };
    assert.deepEqual(await send(), { ok: false, retryable: true, error: 'HTTP 503', retryAfterMs: 10_000 });
  });

  it('408 and 425 retryable, 404 and 3xx not', async () => {
    for (const [status, retryable] of [[408, true], [425, true], [404, false], [302, false]] as const) {
      r.reply.next = { status, headers: status === 302 ? { Location: 'http://example.com/' } : {} };
      const result = await send();
      assert.equal(result.ok, false, `status ${status}`);
      if (!result.ok) assert.equal(result.retryable, retryable, `status ${status}`);
    }
  });

  it('a hanging receiver → timeout, retryable, once timeoutMs has passed', async () => {
    r.reply.next = { status: 200, hang: true };
    const clock = fakeClock(NOW);
    let settled = false;
    const pending = send(channel(200, undefined, clock)).finally(() => { settled = true; });
    await waitFor('the request to reach the receiver', () => r.seen.length === 1);
    clock.advance(199);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'still waiting 1 ms before the deadline');
    clock.advance(1);
    assert.deepEqual(await pending, { ok: false, retryable: true, error: 'timed out after 200 ms' });
  });

  it('a closed port → retryable; the URL never appears in the error', async () => {
    const spare = createServer();
    const sparePort = await listen(spare);
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    const c = createWebhookChannel(webhookChannelSchema.parse({ id: 'h', type: 'webhook', direction: 'outbound',
      url: `http://127.0.0.1:${sparePort}/hooks/T0KEN-in-path` }), { clock: fakeClock(NOW) });
    const result = await c.send(message, new AbortController().signal);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, true);
    assert.match(result.error, /^network error: .*ECONNREFUSED/);
    assert.equal(result.error.includes('T0KEN'), false);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP-dates, ignores junk', () => {
    assert.equal(parseRetryAfter('2', NOW), 2000);
    assert.equal(parseRetryAfter(' 0 ', NOW), 0);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 03:12:30 GMT', NOW), 30_000);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 03:11:00 GMT', NOW), 0, 'a past date means now');
    assert.equal(parseRetryAfter(null, NOW), undefined);
    assert.equal(parseRetryAfter('-1', NOW), undefined);
    assert.equal(parseRetryAfter('soon', NOW), undefined);
    assert.equal(parseRetryAfter('99999999999', NOW), 86_400_000, 'capped at a day');
  });
});

describe('webhook channel: the last look of a page message comes after connecting, right before the request', () => {
  it('the look comes with the connection open and no byte of the request sent; a look that says no closes it unsent', async () => {
    // A raw TCP receiver: what arrives on each connection, byte for byte.
    const conns: Array<{ bytes: number; closed: boolean }> = [];
    const server = createNetServer((socket) => {
      const c = { bytes: 0, closed: false };
      conns.push(c);
      socket.on('data', (chunk: Buffer) => {
        c.bytes += chunk.length;
        if (chunk.toString('latin1').includes('\r\n\r\n{')) socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
      });
      socket.on('close', () => { c.closed = true; });
    });
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
    try {
      const channel = createWebhookChannel(webhookChannelSchema.parse({ id: 'hook', type: 'webhook', direction: 'outbound',
        url: `http://127.0.0.1:${port}/hook`, timeoutMs: 5000 }), { clock: fakeClock(NOW) });
      const looks: string[] = [];
      let left = 0;
      const gate = (go: boolean): WireGate => ({
        enter: async () => {
          await waitFor('the receiver to see the connection', () => conns.length > 0);
          looks.push(`${conns.length} connection(s), ${conns.reduce((n, c) => n + c.bytes, 0)} byte(s)`);
          return go;
        },
        leave: () => { left += 1; },
      });
      const page = { ...message, pageId: 'p0123456789ab' };
      assert.deepEqual(await channel.send(page, new AbortController().signal, gate(false)), NOT_SENT);
      await waitFor('the unsent connection closed', () => conns[0]?.closed === true);
      assert.deepEqual(conns, [{ bytes: 0, closed: true }], 'the receiver got a connection and not one byte');
      assert.equal(left, 0);
      const sent = await channel.send(page, new AbortController().signal, gate(true));
      assert.deepEqual(sent, { ok: true, detail: { httpStatus: '204' } });
      assert.deepEqual(looks, ['1 connection(s), 0 byte(s)', '2 connection(s), 0 byte(s)'], 'each look with the connection made, nothing sent yet');
      assert.equal(left, 1, 'left once the request was written');
      await channel.close();
    } finally {
      server.close();
    }
  });
});

