/**
 * The composition root: builds the store, logs, providers, channels, dispatcher and ingest servers for
 * the loaded agents, starts them, and returns a handle that closes everything in reverse order.
 */
import { createHash } from 'node:crypto';
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { LoadedAgent } from '../config/schema.js';
import { startControlPlane } from '../control-plane/start-control-plane.js';
import { homePaths } from '../config/paths.js';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import { createWebhookIngest } from '../ingest/webhook-server.js';
import type { AgentLog } from '../logs/agent-log.js';
import { createAgentLog } from '../logs/agent-log.js';
import { createMetrics } from '../metrics/registry.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { Sleep } from './backoff.js';
import type { Channel } from './channels/channel.js';
import { createChannel } from './channels/create-channel.js';
import type { DispatchAgent } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import { createProvider } from './providers/create-provider.js';
import type { SourceStats } from './source-stats.js';
import { createSourceStats } from './source-stats.js';
import { createStatusSnapshot } from './status-snapshot.js';

export interface DaemonDeps {
  agents: LoadedAgent[];
  /** Resolved by the config layer (agent.yaml + SVC_METRICS_PORT). */
  controlPlane: ControlPlaneSettings;
  home: string;
  clock: Clock;
  sleep: Sleep;
  version: string;
  pid: number;
  /** Daemon-level diagnostics (stdout of `svc up`, `up.log` with `-d`). Never secrets. */
  report: (line: string) => void;
}

export interface Daemon {
  readonly startedAt: string;
  readonly store: Store;
  readonly stats: SourceStats;
  /** Bound ingest ports, in the order of first appearance. */
  ingestPorts(): number[];
  /** The control-plane listener's bound port, or null when it is disabled. */
  controlPlanePort(): number | null;
  agentIds(): string[];
  close(): Promise<void>;
}

/** How long SIGTERM waits for in-flight dispatches before leaving them for the next start. */
const DRAIN_TIMEOUT_MS = 10_000;
const IDEMPOTENCY_WINDOW_MS = 15 * 60 * 1000;

export async function startDaemon(deps: DaemonDeps): Promise<Daemon> {
  const { clock, report } = deps;
  const paths = homePaths(deps.home);
  const startedAt = isoTs(clock.now());
  const closers: Array<{ name: string; close: () => Promise<void> | void }> = [];
  const closeAll = async (): Promise<void> => {
    for (const c of closers.reverse()) {
      try {
        await c.close();
      } catch (err) {
        report(`shutdown: closing ${c.name} failed: ${errorText(err)}`);
      }
    }
    closers.length = 0;
  };

  try {
    const store = openSqliteStore({ path: paths.db, clock });
    closers.push({ name: 'store', close: () => store.close() });
    const stats = createSourceStats();
    const logs = new Map<string, AgentLog>();
    const dispatchAgents: DispatchAgent[] = [];
    const channels: Channel[] = [];
    const channelsByAgent = new Map<string, Channel[]>();

    for (const loaded of deps.agents) {
      const { agent } = loaded;
      const log = createAgentLog({ path: paths.log(agent.id), agentId: agent.id, clock });
      logs.set(agent.id, log);
      closers.push({ name: `log ${agent.id}`, close: () => log.close() });
      const agentChannels = loaded.channels.map((c) => createChannel(c, { clock }));
      channels.push(...agentChannels);
      channelsByAgent.set(agent.id, agentChannels);
      dispatchAgents.push({ id: agent.id, provider: createProvider(agent), channels: agentChannels, log,
        dispatch: agent.dispatch });
      for (const source of loaded.sources) stats.get(agent.id, source.id);
      await store.appendAudit({ kind: 'config.loaded', actor: 'svc', agentId: agent.id, data: configSummary(loaded) });
      log.write('info', 'config.loaded', { dir: loaded.dir, provider: agent.provider,
        sources: loaded.sources.length, channels: loaded.channels.length });
    }
    closers.push({ name: 'channels', close: async () => { await Promise.all(channels.map((c) => c.close())); } });
    // Shutdown order is the reverse of this list: ingest stops, dispatches drain, then the stop is
    // recorded while the store (and the control plane, inserted below) are still open.
    let started = false;
    const STOP_RECORD = 'runtime.stopped record';
    closers.push({ name: STOP_RECORD, close: async () => {
      if (!started) return; // a failed start records nothing it did not begin
      const left = await store.pendingEvents();
      await store.appendAudit({ kind: 'runtime.stopped', actor: 'svc', agentId: null,
        data: { pid: deps.pid, pendingForNextStart: left.length } });
    } });

    const dispatcher = createDispatcher({ store, agents: dispatchAgents, stats, sleep: deps.sleep,
      onError: (err) => report(`dispatcher error: ${errorText(err)}`) });
    closers.push({ name: 'dispatcher', close: () => dispatcher.drain(DRAIN_TIMEOUT_MS) });

    const ingest = createWebhookIngest({
      store, clock, stats, windowMs: IDEMPOTENCY_WINDOW_MS,
      routes: deps.agents.flatMap((a) => a.sources.map((source) => ({ agentId: a.agent.id, source,
        log: logs.get(a.agent.id) as AgentLog }))),
      onAccepted: (event) => dispatcher.enqueue(event),
      onError: (err) => report(`ingest error: ${errorText(err)}`),
    });
    await ingest.start();
    closers.push({ name: 'ingest', close: () => ingest.close() });

    // Events accepted before a crash or shutdown and not yet handled: dispatch them now.
    const pending = await store.pendingEvents();
    for (const event of pending) {
      stats.get(event.agentId, event.sourceId).inflight += 1;
      dispatcher.enqueue(event);
    }
    if (pending.length > 0) report(`re-dispatching ${pending.length} event(s) left from the previous run`);

    let stopping = false;
    const metrics = createMetrics({ stats, agents: deps.agents.map((a) => ({ id: a.agent.id, sources: a.sources.map((s) => s.id) })) });
    const agentIds = deps.agents.map((a) => a.agent.id);
    const controlPlane = await startControlPlane({
      settings: deps.controlPlane, store, dbPath: paths.db, metrics, clock, report,
      agents: () => agentIds,
      logPath: (id) => paths.log(id),
      snapshot: createStatusSnapshot({ pid: deps.pid, startedAtMs: Date.parse(startedAt), clock, agents: deps.agents,
        channels: channelsByAgent, stats, storeKind: store.kind, stopping: () => stopping,
        controlPlane: () => ({ ...deps.controlPlane, port: controlPlane?.port() ?? deps.controlPlane.port }) }),
    });
    // Kept answering (state "stopping") until the stop is recorded, so operators can watch the drain.
    if (controlPlane) {
      closers.splice(closers.findIndex((c) => c.name === STOP_RECORD), 0, { name: 'control plane', close: () => controlPlane.close() });
    }

    await store.appendAudit({ kind: 'runtime.started', actor: 'svc', agentId: null,
      data: { pid: deps.pid, version: deps.version, agents: deps.agents.map((a) => a.agent.id),
        ingestPorts: ingest.ports(), controlPlanePort: controlPlane?.port() ?? null, requeued: pending.length } });
    started = true;

    let closing: Promise<void> | null = null;
    return {
      startedAt,
      store,
      stats,
      ingestPorts: () => ingest.ports(),
      controlPlanePort: () => controlPlane?.port() ?? null,
      agentIds: () => agentIds,
      close() {
        closing ??= (async () => {
          stopping = true;
          await closeAll();
        })();
        return closing;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** What an auditor needs to know about a loaded configuration, without any secret value. */
function configSummary(loaded: LoadedAgent): Record<string, unknown> {
  const { agent } = loaded;
  const shape = {
    dir: loaded.dir,
    provider: agent.provider,
    model: agent.model ?? null,
    skills: loaded.skills.map((s) => ({ path: s.path, sha256: sha256(s.text) })),
    sources: loaded.sources.map((s) => ({ id: s.id, type: s.type, bind: s.bind, port: s.port,
      timestampHeader: s.timestampHeader ?? null })),
    channels: loaded.channels.map((c) => ({ id: c.id, type: c.type, direction: c.direction })),
    dispatch: agent.dispatch,
  };
  return shape;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
