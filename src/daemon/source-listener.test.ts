import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { RuntimeError } from '../core/errors.js';
import { createSourceListener } from './source-listener.js';

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
});
