import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../core/errors.js';
import { bindAllowed, metricsPortFromEnv } from './control-plane.js';
import type { LoadedAgent, WebhookSourceConfig } from './schema.js';
import { DRAIN_TIMEOUT_MS, MCP_START_WAIT_MS, ingestListeners, resolveSettings } from './settings.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from './store.js';

const source = (id: string, bind: string, port: number, maxConnections = 64): WebhookSourceConfig =>
  ({ id, type: 'webhook', bind, port, maxConnections }) as WebhookSourceConfig;

function agent(id: string, sources: WebhookSourceConfig[], over: Partial<LoadedAgent['agent']> = {}): LoadedAgent {
  return {
    dir: `/srv/${id}`, sources, channels: [], skills: [],
    agent: { id, provider: 'rules', skills: [], dispatch: { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 4 },
      mcpServers: [], rateLimits: { tools: {} }, rules: {}, ...over },
  };
}

const BAD_PORT = 'SVC_METRICS_PORT: invalid port "9464x" (expected an integer 0-65535; 0 disables the listener)';

describe('resolveSettings', () => {
  it('one object: control plane, store with its idempotency window, listeners and the waits', () => {
    const s = resolveSettings([agent('a', [source('am', '127.0.0.1', 9000)])], {}, '/home/svc');
    assert.deepEqual(s.controlPlane, { enabled: true, bind: '127.0.0.1', port: 9464, auth: null, allowRemote: false, maxConnections: 128, publicUrl: null });
    assert.equal(s.store.kind, 'sqlite');
    assert.equal(s.store.kind === 'sqlite' ? s.store.path : '', '/home/svc/svc.db');
    assert.equal(s.store.idempotencyWindowMs, DEFAULT_IDEMPOTENCY_WINDOW_MS);
    assert.equal(DEFAULT_IDEMPOTENCY_WINDOW_MS, 15 * 60_000, 'contract §9.3: 15 minutes');
    assert.equal(s.drainTimeoutMs, DRAIN_TIMEOUT_MS);
    assert.equal(s.mcpStartWaitMs, MCP_START_WAIT_MS);
    assert.deepEqual(s.listeners, [{ key: '127.0.0.1:9000', bind: '127.0.0.1', port: 9000, maxConnections: 64, who: 'source am of agent a' }]);
  });

  it('SVC_METRICS_PORT overrides agent.yaml\'s port; an invalid one is a configuration error', () => {
    const agents = [agent('a', [], { controlPlane: { bind: '127.0.0.1', port: 9500, maxConnections: 128 } })];
    assert.equal(resolveSettings(agents, {}, '/h').controlPlane.port, 9500);
    assert.equal(resolveSettings(agents, { SVC_METRICS_PORT: '9600' }, '/h').controlPlane.port, 9600);
    assert.equal(resolveSettings(agents, { SVC_METRICS_PORT: '0' }, '/h').controlPlane.enabled, false);
    assert.throws(() => resolveSettings(agents, { SVC_METRICS_PORT: '9464x' }, '/h'), (err: unknown) => err instanceof ConfigError && err.message === BAD_PORT);
  });

  it('a control plane beyond loopback without auth is refused, unless it is disabled', () => {
    const agents = [agent('a', [], { controlPlane: { bind: '10.0.0.5', port: 9500, maxConnections: 128 } })];
    assert.throws(() => resolveSettings(agents, {}, '/h'), (err: unknown) => err instanceof ConfigError
      && err.message === '/srv/a/agent.yaml: controlPlane.bind: not a loopback address; binding the control plane beyond loopback requires controlPlane.auth.enabled: true');
    assert.equal(resolveSettings(agents, { SVC_METRICS_PORT: '0' }, '/h').controlPlane.enabled, false);
  });
});

describe('ingestListeners', () => {
  it('sources on one bind and port share a listener (its cap the largest); order is first appearance', () => {
    const listeners = ingestListeners([
      agent('a', [source('am', '127.0.0.1', 9000, 10), source('grafana', '127.0.0.1', 9001, 20)]),
      agent('b', [source('am', '127.0.0.1', 9000, 50), source('local', '::1', 9000, 5)]),
    ]);
    assert.deepEqual(listeners.map((l) => [l.key, l.maxConnections, l.who]), [
      ['127.0.0.1:9000', 50, 'source am of agent a'],
      ['127.0.0.1:9001', 20, 'source grafana of agent a'],
      ['::1:9000', 5, 'source local of agent b'],
    ]);
  });
});

describe('metricsPortFromEnv: one reading of SVC_METRICS_PORT for the daemon and the CLI', () => {
  it('unset or empty: none; 0-65535: that port; anything else: an error naming the variable', () => {
    assert.deepEqual(metricsPortFromEnv({}), { ok: true, port: null });
    assert.deepEqual(metricsPortFromEnv({ SVC_METRICS_PORT: '' }), { ok: true, port: null });
    assert.deepEqual(metricsPortFromEnv({ SVC_METRICS_PORT: '0' }), { ok: true, port: 0 });
    assert.deepEqual(metricsPortFromEnv({ SVC_METRICS_PORT: '65535' }), { ok: true, port: 65535 });
    for (const bad of ['65536', '-1', ' 9464', '9464x', '1e3', '123456']) {
      const r = metricsPortFromEnv({ SVC_METRICS_PORT: bad });
      assert.equal(r.ok, false, bad);
      assert.equal(r.ok ? '' : r.error, `SVC_METRICS_PORT: invalid port ${JSON.stringify(bad)} (expected an integer 0-65535; 0 disables the listener)`);
    }
  });
});

describe('bindAllowed: the bind rule (contract §3.2)', () => {
  it('loopback always; beyond loopback only with auth; a disabled listener anywhere', () => {
    assert.equal(bindAllowed({ bind: '127.0.0.1', port: 9464, authEnabled: false }), true);
    assert.equal(bindAllowed({ bind: '::1', port: 9464, authEnabled: false }), true);
    assert.equal(bindAllowed({ bind: '0.0.0.0', port: 9464, authEnabled: false }), false);
    assert.equal(bindAllowed({ bind: '0.0.0.0', port: 9464, authEnabled: true }), true);
    assert.equal(bindAllowed({ bind: '0.0.0.0', port: 0, authEnabled: false }), true);
  });
});
