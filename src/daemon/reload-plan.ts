/**
 * What a config reload may change live, decided without I/O: given the running configuration and a
 * newly loaded (valid) one, the keys that need a restart — listeners, the store, the control plane,
 * MCP servers, audit export, the set of agents and who has an oncall.yaml — and, when there are none,
 * what changed per agent. Channels, providers, skills, rate limits, triage rules, dispatch, an ack
 * source's `publicUrl` and the on-call files change live; an open page keeps the policy it opened under (contract §17.3).
 */
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { OtlpSettings } from '../config/otlp.js';
import type { LoadedAgent } from '../config/schema.js';
import type { StoreSettings } from '../config/store.js';

/** The configuration a daemon runs: what `svc up` loads (cli/up.ts loadForUp), less what only the CLI needs. */
export interface RunningConfig {
  agents: readonly LoadedAgent[];
  /** Agents with an oncall.yaml (their config's own shape does not matter here: it is applied whole). */
  oncallAgents: ReadonlySet<string>;
  controlPlane: ControlPlaneSettings;
  store: StoreSettings;
  otlp: OtlpSettings | null;
}

export interface AgentChanges {
  agentId: string;
  channelsAdded: string[];
  channelsRemoved: string[];
  channelsChanged: string[];
  /** agent.yaml keys that differ and apply live (provider, skills, rateLimits, rules, dispatch, …). */
  keys: string[];
}

export type ReloadPlan =
  | { kind: 'restart'; keys: string[] }
  | { kind: 'apply'; agents: AgentChanges[] };

/** agent.yaml keys a running daemon cannot change: its listeners, processes, store and exporters. */
const AGENT_RESTART_KEYS = ['controlPlane', 'console', 'mcpServers', 'audit', 'store'] as const;

export function planReload(running: RunningConfig, next: RunningConfig): ReloadPlan {
  const restart: string[] = [];
  const ids = (c: RunningConfig): string[] => c.agents.map((a) => a.agent.id);
  for (const id of ids(next)) if (!ids(running).includes(id)) restart.push(`agent ${id} (added)`);
  for (const id of ids(running)) if (!ids(next).includes(id)) restart.push(`agent ${id} (removed)`);
  restart.push(...diffPaths(running.controlPlane, next.controlPlane, 'controlPlane'),
    ...diffPaths(running.store, next.store, 'store').map(asWritten),
    ...diffPaths(running.otlp, next.otlp, 'OTEL_EXPORTER_OTLP'));

  const agents: AgentChanges[] = [];
  for (const now of next.agents) {
    const was = running.agents.find((a) => a.agent.id === now.agent.id);
    if (was === undefined) continue;
    const id = now.agent.id;
    if (was.dir !== now.dir) restart.push(`${id}: directory`);
    for (const key of AGENT_RESTART_KEYS) restart.push(...diffPaths(was.agent[key], now.agent[key], `${id}: agent.yaml ${key}`));
    restart.push(...diffPaths(byId(was.sources), byId(now.sources), `${id}: event-sources.yaml sources`),
      ...diffPaths(listenerOf(was.ackSource), listenerOf(now.ackSource), `${id}: event-sources.yaml ack source`),
      ...diffPaths(was.slackSource, now.slackSource, `${id}: event-sources.yaml slack source`),
      ...diffPaths(byId(was.twilioSources ?? []), byId(now.twilioSources ?? []), `${id}: event-sources.yaml twilio sources`));
    if (running.oncallAgents.has(id) !== next.oncallAgents.has(id)) {
      restart.push(`${id}: oncall.yaml (${next.oncallAgents.has(id) ? 'added' : 'removed'})`);
    }

    const before = byId(was.channels);
    const after = byId(now.channels);
    const live = Object.keys({ ...was.agent, ...now.agent }).filter((k) => !(AGENT_RESTART_KEYS as readonly string[]).includes(k) && k !== 'id')
      .filter((k) => !sameConfig(was.agent[k as keyof typeof was.agent], now.agent[k as keyof typeof now.agent]));
    if (!sameConfig(was.skills, now.skills) && !live.includes('skills')) live.push('skills');
    if (was.ackSource !== undefined && now.ackSource !== undefined && was.ackSource.publicUrl !== now.ackSource.publicUrl) live.push(ACK_PUBLIC_URL);
    agents.push({
      agentId: id,
      channelsAdded: Object.keys(after).filter((c) => !(c in before)),
      channelsRemoved: Object.keys(before).filter((c) => !(c in after)),
      channelsChanged: Object.keys(after).filter((c) => c in before && !sameConfig(before[c], after[c])),
      keys: live.sort(),
    });
  }
  return restart.length > 0 ? { kind: 'restart', keys: restart } : { kind: 'apply', agents };
}

/** An ack source's `publicUrl` only names what links start with: it changes live (the key as `config.reloaded` names it). */
const ACK_PUBLIC_URL = 'event-sources.yaml ack source.publicUrl';
const listenerOf = (ack: LoadedAgent['ackSource']): unknown => (ack === undefined ? undefined : { ...ack, publicUrl: undefined });

/** The resolved store settings carry ms where agent.yaml writes durations: a key is named as the operator wrote it. */
const WRITTEN: Record<string, string> = {
  'store.deliveryWindowMs': 'store.deliveryWindow',
  'store.retention.eventsMs': 'store.retention.events',
  'store.retention.deadLettersMs': 'store.retention.deadLetters',
};
const asWritten = (path: string): string => WRITTEN[path] ?? path;

function byId<T extends { id: string }>(items: readonly T[]): Record<string, T> {
  return Object.fromEntries(items.map((i) => [i.id, i]));
}

/** Two loaded configurations (or parts) are the same: a channel so kept carries on with its connections and files. */
export function sameConfig(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The key paths where two JSON-shaped values differ (`controlPlane.port`, `sources.alerts.port`),
 * leaves only. Values are never part of the answer: some of them are secrets.
 */
export function diffPaths(a: unknown, b: unknown, path: string): string[] {
  const x: unknown = a === undefined ? undefined : JSON.parse(JSON.stringify(a));
  const y: unknown = b === undefined ? undefined : JSON.parse(JSON.stringify(b));
  return walk(x, y, path);
}

function walk(a: unknown, b: unknown, path: string): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => walk(a[k], b[k], `${path}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
}
