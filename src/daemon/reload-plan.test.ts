import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoadedAgent } from '../config/schema.js';
import type { StoreSettings } from '../config/store.js';
import type { RunningConfig } from './reload-plan.js';
import { diffPaths, planReload } from './reload-plan.js';

/** The parts of a loaded agent the plan reads; the rest of the shape does not matter to it. */
function agent(id: string, over: { agent?: Record<string, unknown>; sources?: unknown[]; channels?: unknown[]; skills?: unknown[] } = {}): LoadedAgent {
  return {
    dir: `/etc/svc/${id}`,
    agent: { id, provider: 'rules', skills: [], dispatch: { concurrency: 4 }, mcpServers: [], rateLimits: { tools: {} }, rules: {}, ...over.agent },
    sources: over.sources ?? [{ id: 'alertmanager', type: 'webhook', bind: '127.0.0.1', port: 8787, secret: 's3cr3t-value' }],
    channels: over.channels ?? [{ id: 'oncall-dm', type: 'file', direction: 'outbound', path: '/tmp/out.jsonl' }],
    skills: over.skills ?? [{ path: '/etc/svc/a/skills/triage.md', text: 'triage' }],
  } as unknown as LoadedAgent;
}

function config(agents: LoadedAgent[], over: Partial<RunningConfig> = {}): RunningConfig {
  return {
    agents, oncallAgents: new Set(), otlp: null,
    controlPlane: { enabled: true, bind: '127.0.0.1', port: 9464, maxConnections: 128, auth: null, allowRemote: false, publicUrl: null },
    store: { kind: 'sqlite', path: '/var/lib/svc/svc.db', leaseMs: 5000 } as unknown as StoreSettings,
    ...over,
  };
}

describe('planReload: what a config reload may apply live', () => {
  it('an unchanged configuration applies with nothing changed', () => {
    assert.deepEqual(planReload(config([agent('a')]), config([agent('a')])),
      { kind: 'apply', agents: [{ agentId: 'a', channelsAdded: [], channelsRemoved: [], channelsChanged: [], keys: [] }] });
  });

  it('channels added, removed and changed, rate limits, skills and triage rules apply live', () => {
    const next = agent('a', {
      agent: { rateLimits: { provider: { perSecond: 1, burst: 1 }, tools: {} }, rules: { lookup: { server: 'rb', tool: 'find' } } },
      channels: [{ id: 'oncall-dm', type: 'file', direction: 'outbound', path: '/tmp/other.jsonl' },
        { id: 'pager', type: 'webhook', direction: 'outbound', url: 'http://127.0.0.1:1/hook' }],
      skills: [{ path: '/etc/svc/a/skills/triage.md', text: 'triage, page the database team' }],
    });
    assert.deepEqual(planReload(config([agent('a')]), config([next])),
      { kind: 'apply', agents: [{ agentId: 'a', channelsAdded: ['pager'], channelsRemoved: [], channelsChanged: ['oncall-dm'],
        keys: ['rateLimits', 'rules', 'skills'] }] });
    const fewer = agent('a', { channels: [] });
    assert.deepEqual(planReload(config([agent('a')]), config([fewer])).kind === 'apply'
      && planReload(config([agent('a')]), config([fewer])), { kind: 'apply', agents: [{ agentId: 'a', channelsAdded: [],
      channelsRemoved: ['oncall-dm'], channelsChanged: [], keys: [] }] });
  });

  it('a source port, the control plane, the store, MCP servers and the agents themselves need a restart, each named by its key', () => {
    const moved = agent('a', { sources: [{ id: 'alertmanager', type: 'webhook', bind: '127.0.0.1', port: 9797, secret: 's3cr3t-value' }] });
    assert.deepEqual(planReload(config([agent('a')]), config([moved])),
      { kind: 'restart', keys: ['a: event-sources.yaml sources.alertmanager.port'] });
    const cp = config([agent('a')], { controlPlane: { ...config([]).controlPlane, port: 9465 } });
    assert.deepEqual(planReload(config([agent('a')]), cp), { kind: 'restart', keys: ['controlPlane.port'] });
    const store = config([agent('a')], { store: { kind: 'sqlite', path: '/srv/svc.db', leaseMs: 5000 } as unknown as StoreSettings });
    assert.deepEqual(planReload(config([agent('a')]), store), { kind: 'restart', keys: ['store.path'] });
    // Named as agent.yaml writes them, not as the resolved settings hold them (in ms).
    const resolved = (deliveryWindowMs: number, eventsMs: number | null, deadLettersMs: number | null): RunningConfig => config([agent('a')],
      { store: { kind: 'sqlite', path: '/var/lib/svc/svc.db', leaseMs: 5000, deliveryWindowMs, retention: { eventsMs, deadLettersMs } } });
    assert.deepEqual(planReload(resolved(1_800_000, null, null), resolved(0, 60_000, 1000)),
      { kind: 'restart', keys: ['store.deliveryWindow', 'store.retention.deadLetters', 'store.retention.events'] });
    const mcp = agent('a', { agent: { mcpServers: [{ id: 'rb', command: 'rb' }] } });
    assert.deepEqual(planReload(config([agent('a')]), config([mcp])), { kind: 'restart', keys: ['a: agent.yaml mcpServers'] });
    assert.deepEqual(planReload(config([agent('a')]), config([agent('a'), agent('b')])), { kind: 'restart', keys: ['agent b (added)'] });
    assert.deepEqual(planReload(config([agent('a'), agent('b')]), config([agent('a')])), { kind: 'restart', keys: ['agent b (removed)'] });
  });

  it('a twilio source (its own listener, §21.4) added or changed needs a restart, named by its id and key', () => {
    const source = { id: 'twilio-sms', type: 'twilio', bind: '127.0.0.1', port: 8791, publicUrl: 'https://svc.example.com/twilio', channel: 'sms' };
    const withSource = (publicUrl: string): LoadedAgent => ({ ...agent('a'), twilioSources: [{ ...source, publicUrl }] } as unknown as LoadedAgent);
    assert.deepEqual(planReload(config([agent('a')]), config([withSource(source.publicUrl)])),
      { kind: 'restart', keys: ['a: event-sources.yaml twilio sources.twilio-sms'] });
    assert.deepEqual(planReload(config([withSource(source.publicUrl)]), config([withSource('https://svc.example.org/twilio')])),
      { kind: 'restart', keys: ['a: event-sources.yaml twilio sources.twilio-sms.publicUrl'] });
  });

  it('an oncall.yaml that appears or goes needs a restart; one that changes applies live', () => {
    const paging = config([agent('a')], { oncallAgents: new Set(['a']) });
    assert.deepEqual(planReload(config([agent('a')]), paging), { kind: 'restart', keys: ['a: oncall.yaml (added)'] });
    assert.deepEqual(planReload(paging, config([agent('a')])), { kind: 'restart', keys: ['a: oncall.yaml (removed)'] });
    assert.equal(planReload(paging, paging).kind, 'apply');
  });

  it("an ack source's publicUrl applies live; its port or secret needs a restart", () => {
    const withAck = (over: Record<string, unknown>): LoadedAgent => ({ ...agent('a'),
      ackSource: { id: 'ack-links', type: 'ack', bind: '127.0.0.1', port: 8790, secret: 'ack-secret-0123456789', maxConnections: 512, ...over } });
    const before = config([withAck({})]);
    assert.deepEqual(planReload(before, config([withAck({ publicUrl: 'https://svc.example.com/ack' })])),
      { kind: 'apply', agents: [{ agentId: 'a', channelsAdded: [], channelsRemoved: [], channelsChanged: [], keys: ['event-sources.yaml ack source.publicUrl'] }] });
    assert.deepEqual(planReload(config([withAck({ publicUrl: 'https://svc.example.com/ack' })]), before).kind, 'apply', 'and back to the default');
    assert.deepEqual(planReload(before, config([withAck({ port: 8791, publicUrl: 'https://svc.example.com/ack' })])),
      { kind: 'restart', keys: ['a: event-sources.yaml ack source.port'] });
    assert.deepEqual(planReload(before, config([withAck({ secret: 'another-secret-0123456789' })])),
      { kind: 'restart', keys: ['a: event-sources.yaml ack source.secret'] });
  });

  it('a restart-only change refuses the reload even beside live changes', () => {
    const both = agent('a', { channels: [], sources: [{ id: 'alertmanager', type: 'webhook', bind: '0.0.0.0', port: 8787, secret: 's3cr3t-value' }] });
    assert.deepEqual(planReload(config([agent('a')]), config([both])),
      { kind: 'restart', keys: ['a: event-sources.yaml sources.alertmanager.bind'] });
  });
});

describe('diffPaths', () => {
  it('names the leaves that differ, never their values', () => {
    const paths = diffPaths({ auth: { token: 'old-secret' }, port: 1, same: [1] }, { auth: { token: 'new-secret' }, port: 2, same: [1], extra: true }, 'x');
    assert.deepEqual(paths, ['x.auth.token', 'x.extra', 'x.port']);
    assert.ok(!JSON.stringify(paths).includes('secret'));
  });
});
