import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createListenerRegistry } from './listener-registry.js';

describe('listener registry', () => {
  it('lists listeners in the order of the kinds vocabulary, registration order within a kind, live values read when asked', () => {
    const registry = createListenerRegistry();
    let ackPort = 0;
    registry.add({ kind: 'ack', agent: 'a', source: 'links', bind: '127.0.0.1', port: () => ackPort, url: () => `http://127.0.0.1:${ackPort}/ack` });
    registry.add({ kind: 'control-plane', agent: null, source: null, bind: '127.0.0.1', port: () => 9464, url: () => 'http://127.0.0.1:9464' });
    registry.add({ kind: 'ingest', agent: 'a', source: 'second', bind: '0.0.0.0', port: () => 8788, url: () => 'http://0.0.0.0:8788/webhooks/second' });
    registry.add({ kind: 'ingest', agent: 'a', source: 'first', bind: '127.0.0.1', port: () => 8787, url: () => 'http://127.0.0.1:8787/webhooks/first' });
    ackPort = 40123;
    assert.deepEqual(registry.list().map((l) => [l.kind, l.source, l.port]), [
      ['ingest', 'second', 8788], ['ingest', 'first', 8787], ['control-plane', null, 9464], ['ack', 'links', 40123],
    ]);
    assert.deepEqual(registry.list()[3], { kind: 'ack', agent: 'a', source: 'links', bind: '127.0.0.1', port: 40123, url: 'http://127.0.0.1:40123/ack' });
  });
});
