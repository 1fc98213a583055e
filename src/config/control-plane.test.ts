import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../core/errors.js';
import { resolveControlPlane } from './control-plane.js';
import type { LoadedAgent } from './schema.js';

function agentWith(cp?: { bind: string; port: number }): LoadedAgent {
  const controlPlane = cp === undefined ? undefined : { maxConnections: 128, ...cp };
  return {
    dir: '/x', sources: [], channels: [], skills: [],
    agent: { id: 'a', provider: 'rules', skills: [], controlPlane,
      dispatch: { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 4 },
      mcpServers: [], rateLimits: { tools: {} }, rules: {} },
  };
}

describe('resolveControlPlane', () => {
  it('defaults to 127.0.0.1:9464', () => {
    assert.deepEqual(resolveControlPlane([agentWith()], {}), { enabled: true, bind: '127.0.0.1', port: 9464, auth: null, allowRemote: false, maxConnections: 128, publicUrl: null });
  });
  it('takes the agent setting, and SVC_METRICS_PORT over it', () => {
    assert.equal(resolveControlPlane([agentWith({ bind: '127.0.0.1', port: 9500 })], {}).port, 9500);
    assert.equal(resolveControlPlane([agentWith({ bind: '127.0.0.1', port: 9500 })], { SVC_METRICS_PORT: '9600' }).port, 9600);
  });
  it('SVC_METRICS_PORT=0 disables the listener', () => {
    assert.deepEqual(resolveControlPlane([agentWith()], { SVC_METRICS_PORT: '0' }), { enabled: false, bind: '127.0.0.1', port: 0, auth: null, allowRemote: false, maxConnections: 128, publicUrl: null });
  });
  for (const bad of ['abc', '-1', '65536', '9464x', ' 9464', '1e3']) {
    it(`SVC_METRICS_PORT=${JSON.stringify(bad)} is a configuration error`, () => {
      assert.throws(() => resolveControlPlane([agentWith()], { SVC_METRICS_PORT: bad }), (err: unknown) =>
        err instanceof ConfigError && err.message.startsWith('SVC_METRICS_PORT: invalid port'));
    });
  }
  it('a non-loopback bind without auth refuses to start', () => {
    assert.throws(() => resolveControlPlane([agentWith({ bind: '0.0.0.0', port: 9464 })], {}), (err: unknown) =>
      err instanceof ConfigError && /requires controlPlane\.auth\.enabled: true/.test(err.message));
  });
});
