import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { LoadedAgent } from '../config/schema.js';
import { fakeClock } from '../core/clock.js';
import type { StatusSnapshot } from '../control-plane/routes/status-route.js';
import type { Channel } from '../runtime/channels/channel.js';
import type { McpServerStatus } from '../runtime/mcp/mcp-types.js';
import { createSourceStats } from '../metrics/source-stats.js';
import { createStatusSnapshot } from './status-snapshot.js';

const source = (id: string, port: number, auth: Record<string, unknown> = { secret: 'hmac-secret-0123456789' }): unknown =>
  ({ id, type: 'webhook', bind: '127.0.0.1', port, signatureHeader: 'X-Signature', ...auth });
const agents = [
  { agent: { id: 'alpha', provider: 'rules' }, sources: [source('alertmanager', 8787)] },
  { agent: { id: 'beta "quoted"', provider: 'anthropic' }, sources: [source('grafana', 8788), source('pager', 8789, { bearerToken: 'token-0123456789abcdef', tls: { cert: 'c', key: 'k' } })] },
] as unknown as LoadedAgent[];

function channel(id: string, ready: () => boolean): Channel {
  return { id, type: 'file', direction: 'outbound', ready } as unknown as Channel;
}

describe('status document', () => {
  it('is the StatusSnapshot shape with every live value read at call time', () => {
    const clock = fakeClock(Date.parse('2026-11-23T10:00:00.000Z'));
    const stats = createSourceStats();
    let ready = true;
    let stopping = false;
    let leader = false;
    let mcp: McpServerStatus[] = [];
    let exportState: StatusSnapshot['audit'] = null;
    let checkpoints: StatusSnapshot['checkpoints'] = null;
    const alphaOncall = { pagesOpen: 2, schedules: ['primary'], heartbeats: [{ id: 'watchdog', lastSeen: '2026-11-23T09:59:00.000Z', state: 'ok' as const }] };
    let publicUrl = 'http://127.0.0.1:8790/ack';
    const listeners = (): StatusSnapshot['listeners'] => [
      { kind: 'ingest', agent: 'alpha', source: 'alertmanager', bind: '127.0.0.1', port: 8787, url: 'http://127.0.0.1:8787/webhooks/alertmanager' },
      { kind: 'ack', agent: 'alpha', source: 'ack-links', bind: '127.0.0.1', port: 8790, url: publicUrl },
    ];
    const settings = { bind: '127.0.0.1', port: 0, auth: null } as unknown as ControlPlaneSettings;
    const text = createStatusSnapshot({
      pid: 4242, startedAtMs: clock.now(), clock, agents, stats,
      channels: new Map([['alpha', [channel('oncall', () => ready)]]]),
      controlPlane: () => ({ ...settings, port: 9464 }),
      store: { kind: 'sqlite', id: '2f0675af99f7f934a1b2c3d4e5f60718', replica: 'host-a', leader: () => leader, retention: { eventsMs: 2 * 86_400_000, deadLettersMs: null } },
      stopping: () => stopping,
      mcpServers: (id) => (id === 'alpha' ? mcp : []),
      auditExport: () => exportState,
      checkpoints: () => checkpoints,
      logWriteFailures: (id) => (id === 'alpha' ? 3 : 0),
      oncall: (id) => (id === 'alpha' ? alphaOncall : null),
      listeners,
    });

    const first = JSON.parse(text()) as StatusSnapshot;
    const expected: StatusSnapshot = {
      version: 1, pid: 4242, startedAt: '2026-11-23T10:00:00.000Z', uptimeSeconds: 0,
      agents: [
        { id: 'alpha', state: 'running', provider: 'rules',
          sources: [{ id: 'alertmanager', type: 'webhook', summary: 'POST http://127.0.0.1:8787/webhooks/alertmanager (HMAC X-Signature)',
            received: 0, processed: 0, dlq: 0, inflight: 0 }],
          channels: [{ id: 'oncall', type: 'file', direction: 'outbound', ready: true }],
          mcpServers: [], logWriteFailures: 3, oncall: alphaOncall },
        { id: 'beta "quoted"', state: 'running', provider: 'anthropic',
          sources: [
            { id: 'grafana', type: 'webhook', summary: 'POST http://127.0.0.1:8788/webhooks/grafana (HMAC X-Signature)', received: 0, processed: 0, dlq: 0, inflight: 0 },
            { id: 'pager', type: 'webhook', summary: 'POST https://127.0.0.1:8789/webhooks/pager (bearer)', received: 0, processed: 0, dlq: 0, inflight: 0 },
          ],
          channels: [], mcpServers: [], logWriteFailures: 0, oncall: null },
      ],
      controlPlane: { bind: '127.0.0.1', port: 9464, auth: { enabled: false, provider: null } },
      listeners: listeners(),
      store: { kind: 'sqlite', id: '2f0675af99f7f934a1b2c3d4e5f60718', replica: 'host-a', leader: false, retention: { events: '2d', deadLetters: null } },
      audit: null,
      checkpoints: null,
    };
    assert.deepEqual(first, expected);

    clock.advance(61_500);
    const counters = stats.get('beta "quoted"', 'pager');
    counters.received = 5;
    counters.processed = 2;
    counters.dlq = 1;
    counters.inflight = 2;
    ready = false;
    stopping = true;
    leader = true;
    mcp = [{ id: 'runbooks', state: 'running', circuit: 'closed', restarts: 1, pid: 99, tools: ['lookup'] }];
    publicUrl = 'https://svc.example.com/ack';
    exportState = { exporters: [{ id: 'siem', type: 'http', lastSeq: 10, failures: 0, lastError: null, alarm: null }], backpressure: { active: false, backlogRows: 0 } };
    checkpoints = { lastSeq: 40, lastTs: '2026-11-23T10:00:30.000Z', alarm: { source: 'file', kind: 'missing-row', seq: 52, hash: 'a'.repeat(64),
      chainHash: null, signedAt: '2026-11-23T09:00:00.000Z', headSeq: 48, since: '2026-11-23T10:01:00.000Z',
      message: 'the checkpoint signed at 2026-11-23T09:00:00.000Z covers seq 52, but the chain ends at seq 48: rows after seq 48 were deleted' } };

    const second = JSON.parse(text()) as StatusSnapshot;
    assert.equal(second.uptimeSeconds, 61);
    assert.deepEqual(second.agents.map((a) => a.state), ['stopping', 'stopping']);
    assert.deepEqual(second.agents[1]?.sources[1], { ...expected.agents[1]?.sources[1], received: 5, processed: 2, dlq: 1, inflight: 2 });
    assert.equal(second.agents[0]?.channels[0]?.ready, false);
    assert.deepEqual(second.agents[0]?.mcpServers, mcp);
    assert.equal(second.store.leader, true);
    assert.deepEqual(second.audit, exportState);
    assert.deepEqual(second.checkpoints, checkpoints);
    assert.equal(second.listeners?.[1]?.url, 'https://svc.example.com/ack', 'listeners are read at call time');
  });
});
