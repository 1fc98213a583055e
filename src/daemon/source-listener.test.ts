import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
import { CLOSE_GRACE_MS, createSourceListener } from './source-listener.js';
import { waitFor, within } from '../../test/support/wait.js';

describe('source listener', () => {
  it('a port in use fails the start naming the source and the port, not the address', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const listener = createSourceListener({
        source: { id: 'ack-links', type: 'ack', port, bind: '127.0.0.1', maxConnections: 8 },
        handle: () => Promise.resolve(),
        onError: () => undefined,
        unavailable: (res) => res.writeHead(503).end(),
      });
      await assert.rejects(listener.start(), (err: unknown) => {
        assert.ok(err instanceof RuntimeError);
        assert.equal(err.code, 'ELISTEN');
        assert.equal(err.message, `ack source ack-links cannot listen on port ${port}: EADDRINUSE`);
        return true;
      });
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('close() does not wait on a client still trickling its request: cut after the grace, not the 30 s request timeout', async () => {
    const clock = fakeClock();
    let reading = false;
    const listener = createSourceListener({
      source: { id: 'ack-links', type: 'ack', port: 0, bind: '127.0.0.1', maxConnections: 8 },
      // Reads the whole form before answering, as the ack and Slack handlers do.
      handle: async (req, res) => {
        reading = true;
        for await (const chunk of req) void chunk;
        res.writeHead(204).end();
      },
      onError: () => undefined,
      unavailable: (res) => res.writeHead(503).end(),
      clock,
    });
    await listener.start();
    const client = connect(listener.port(), '127.0.0.1');
    client.on('error', () => undefined);
    const cut = new Promise<void>((resolve) => client.on('close', () => resolve()));
    // A form of 1,000 bytes of which 10 ever come.
    client.write('POST /ack/x HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 1000\r\n\r\nconfirm=1&');
    await waitFor('the request under way', () => reading);
    let closed = false;
    const closing = listener.close().then(() => { closed = true; });
    await clock.advanceAsync(CLOSE_GRACE_MS - 1);
    assert.equal(closed, false, 'a request under way gets the grace');
    await clock.advanceAsync(1);
    await within(closing, 'close() once the grace is over');
    await within(cut, 'the stalled client cut off');
  });
});
