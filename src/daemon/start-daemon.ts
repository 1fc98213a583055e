/**
 * The composition root: builds the store, logs, providers, channels, dispatcher and ingest servers for
 * the loaded agents, starts them, and returns a handle that closes everything in reverse order.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { OtlpSettings } from '../config/otlp.js';
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { StoreSettings } from '../config/store.js';
import { DEFAULT_DELIVERY_WINDOW_MS } from '../config/store.js';
import type { AuditConfig, LoadedAgent } from '../config/schema.js';
import { startControlPlane } from '../control-plane/start-control-plane.js';
import { homePaths } from '../config/paths.js';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import { checkDescriptorBudget } from '../core/fd-limit.js';
import { createWebhookIngest } from '../ingest/webhook-server.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { LogFields } from '../core/log.js';
import type { AgentLog, FileAgentLog, LogMirror } from '../logs/agent-log.js';
import { createAgentLog, createLogSinkHealth } from '../logs/agent-log.js';
import { startOtlpBridge } from '../metrics/otlp-bridge.js';
import { createMetrics } from '../metrics/registry.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { buildAgent } from '../runtime/build-agent.js';
import type { Channel } from '../runtime/channels/channel.js';
import { createDispatcher } from '../runtime/dispatch/dispatcher.js';
import type { DispatchAgent } from '../runtime/dispatch/handle-event.js';
import { startBacklogGauge } from '../runtime/backlog-gauge.js';
import type { McpSupervisor } from '../runtime/mcp/mcp-types.js';
import { createMcpSupervisor } from '../runtime/mcp/mcp-supervisor.js';
import { notifyingStore } from './notifying-store.js';
import type { SourceStats } from '../metrics/source-stats.js';
import { createSourceStats } from '../metrics/source-stats.js';
import { startLeaderDuties } from './leader-duties.js';
import { startPages } from './start-pages.js';
import type { AckLinkServer } from './ack-link-server.js';
import { createAckLinkServer } from './ack-link-server.js';
import { createSlackActionsServer } from './slack-actions-server.js';
import { loadReplicaId, runOwner } from './replica-id.js';
import { createStatusSnapshot } from './status-snapshot.js';
import type { AdminSocket } from './admin-socket.js';
import { startAdminSocket } from './admin-socket.js';
import { createReadiness } from './readiness.js';

export interface DaemonDeps {
  agents: LoadedAgent[];
  /** Each agent's oncall.yaml, by agent id (oncall/load-oncall.ts); an agent without one pages as before (§17). */
  oncall?: ReadonlyMap<string, OncallConfig>;
  /** Resolved by the config layer (agent.yaml + SVC_METRICS_PORT). */
  controlPlane: ControlPlaneSettings;
  /** The daemon-wide `store` block, resolved (contract §10). */
  store: StoreSettings;
  home: string;
  clock: Clock;
  version: string;
  pid: number;
  /** Set when OTEL_EXPORTER_OTLP_ENDPOINT is: the metrics also go out over OTLP/HTTP. */
  otlp: OtlpSettings | null;
  /** The environment MCP server processes start from (PATH, HOME); their config adds to it. */
  mcpBaseEnv: Record<string, string>;
  /** Daemon-level diagnostics (stdout of `svc up`, `up.log` with `-d`). Never secrets. */
  report: (line: string) => void;
  /** Foreground: every agent record also goes here (stdout, contract §13). */
  logMirror?: LogMirror;
  /** Start the admin socket (default true; in-process tests of several daemons in one home turn it off). */
  adminSocket?: boolean;
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
  /** SIGHUP: every agent log and every file channel opens its path afresh (after logrotate's rename). */
  reopenLogs(): void;
  close(): Promise<void>;
}

/** How long SIGTERM waits for in-flight dispatches before giving them back to the queue. */
const DRAIN_TIMEOUT_MS = 10_000;
const IDEMPOTENCY_WINDOW_MS = 15 * 60 * 1000;
/** Longest `svc up` waits for the MCP servers' first start before it opens the ingest anyway. */
const MCP_START_WAIT_MS = 10_000;

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

  /** Subsystems without an agent (OTLP, SIEM export) log one line per record to the daemon's output. */
  const daemonLog = (level: string, event: string, fields: Record<string, unknown>): void => report(`${level} ${event} ${JSON.stringify(fields)}`);

  try {
    // Every listener's cap, plus what the daemon keeps for itself, under the open-file limit (§11.2).
    const byPort = new Map<string, number>();
    for (const { sources } of deps.agents) {
      for (const src of sources) byPort.set(`${src.bind}:${src.port}`, Math.max(byPort.get(`${src.bind}:${src.port}`) ?? 0, src.maxConnections));
    }
    checkDescriptorBudget([...[...byPort].map(([name, maxConnections]) => ({ name: `ingest ${name}`, maxConnections })),
      ...(deps.controlPlane.enabled ? [{ name: 'control plane', maxConnections: deps.controlPlane.maxConnections }] : [])]);
    // A PostgreSQL store reports connection trouble here (never the URL's password); calls made while
    // the database is away reject, and ingest answers 503 until it is back (contract §16.6).
    const store = await openStore(deps.store, { clock, onError: (message) => report(`store: ${message}`) });
    closers.push({ name: 'store', close: () => store.close() });
    const replicaId = loadReplicaId(paths.replicaId);
    // Claims a previous run of this replica left (a crash, a kill) are given back at once.
    const released = await store.releaseClaims(`${replicaId}/`);
    const stats = createSourceStats();
    const audit = daemonAuditConfig(deps.agents);
    const mcpConfigs = deps.agents.flatMap((a) => a.agent.mcpServers.map((config) => ({ config, loaded: a })));
    const metrics = createMetrics({ stats, agents: deps.agents.map((a) => ({ id: a.agent.id, sources: a.sources.map((s) => s.id),
      channels: a.channels.map((c) => c.id) })),
      mcpServers: mcpConfigs.map((m) => m.config.id), exporters: audit?.export.map((e) => e.id) ?? [], processMetrics: true });
    if (deps.otlp) {
      const bridge = await startOtlpBridge({ registry: metrics.registry, settings: deps.otlp, serviceName: 'svc',
        serviceVersion: deps.version, log: daemonLog });
      closers.push({ name: 'otlp bridge', close: () => bridge.close() });
    }

    // SIEM export and retention run on the replica holding the leader lease (always this one with
    // SQLite). Export reads the chain behind the store; every append wakes it, and its gate pauses intake.
    const owner = runOwner(replicaId);
    const duties = await startLeaderDuties({ store, clock, holder: owner, leaseMs: deps.store.leaseMs, audit, auditMetrics: metrics.audit,
      retention: deps.store.retention, windowMs: IDEMPOTENCY_WINDOW_MS, hostname: hostname(), pid: deps.pid, log: daemonLog, report,
      checkpointsPath: paths.checkpoints });
    closers.push({ name: 'leader duties', close: () => duties.close() });
    const runtimeStore = audit && audit.export.length > 0 ? notifyingStore(store, () => duties.notify()) : store;

    const logs = new Map<string, FileAgentLog>();
    const logHealth = createLogSinkHealth({ clock, report });
    for (const { agent } of deps.agents) {
      const log = createAgentLog({ path: paths.log(agent.id), agentId: agent.id, clock, health: logHealth,
        ...(deps.logMirror ? { mirror: deps.logMirror } : {}) });
      logs.set(agent.id, log);
      closers.push({ name: `log ${agent.id}`, close: () => log.close() });
    }
    const agentLog = (id: string): AgentLog => logs.get(id) as AgentLog;

    // MCP servers start before anything can call them, and stop only after the dispatcher has drained.
    const servers = new Map<string, McpSupervisor>(mcpConfigs.map(({ config, loaded }) => [config.id, createMcpSupervisor({
      config, agentDir: loaded.dir, metrics: metrics.mcp, clock, baseEnv: deps.mcpBaseEnv,
      log: (level, event, fields) => agentLog(loaded.agent.id).write(level, event, logFields(fields)) })]));
    closers.push({ name: 'mcp servers', close: async () => { await Promise.all([...servers.values()].map((s) => s.close())); } });
    // Bounded: a server that is slow to come up keeps starting in the background (state `starting`),
    // it never holds the ingest back past MCP_START_WAIT_MS.
    const waited = new AbortController();
    await Promise.race([Promise.all([...servers.values()].map((s) => s.start())),
      clock.sleep(MCP_START_WAIT_MS, waited.signal).catch(() => undefined)]);
    waited.abort();

    const dispatchAgents: DispatchAgent[] = [];
    const channels: Channel[] = [];
    const channelsByAgent = new Map<string, Channel[]>();
    for (const loaded of deps.agents) {
      const { agent } = loaded;
      const log = agentLog(agent.id);
      const built = buildAgent(loaded, { log, audit: (entry) => runtimeStore.appendAudit(entry, clock.now()), metrics, servers, clock });
      channels.push(...built.channels);
      channelsByAgent.set(agent.id, built.channels);
      dispatchAgents.push(built.dispatch);
      for (const source of loaded.sources) stats.get(agent.id, source.id);
      await runtimeStore.appendAudit({ kind: 'config.loaded', actor: 'svc', agentId: agent.id, data: configSummary(loaded) }, clock.now());
      log.write('info', 'config.loaded', { dir: loaded.dir, provider: agent.provider,
        sources: loaded.sources.length, channels: loaded.channels.length, mcpServers: agent.mcpServers.length });
    }
    closers.push({ name: 'channels', close: async () => { await Promise.all(channels.map((c) => c.close())); } });
    // Shutdown order is the reverse of this list: ingest stops, dispatches drain, then the stop is
    // recorded while the store (and the control plane, inserted below) are still open.
    let started = false;
    const STOP_RECORD = 'runtime.stopped record';
    closers.push({ name: STOP_RECORD, close: async () => {
      if (!started) return; // a failed start records nothing it did not begin
      const left = (await store.backlog()).reduce((n, c) => n + c.count, 0);
      await runtimeStore.appendAudit({ kind: 'runtime.stopped', actor: 'svc', agentId: null,
        data: { pid: deps.pid, pendingForNextStart: left } }, clock.now());
    } });

    const backlog = startBacklogGauge({ store, clock, metrics: metrics.dispatch, stats, agents: deps.agents.map((a) => a.agent.id),
      onError: (err) => report(`backlog count failed: ${errorText(err)}`) });
    await backlog.refresh();
    closers.push({ name: 'backlog gauge', close: () => backlog.close() });

    // Agents with an oncall.yaml page through the page engine (contract §17); it stops before the channels close.
    const pageConfigs = deps.oncall ?? new Map<string, OncallConfig>();
    const ackServers = new Map<string, AckLinkServer>();
    const pages = pageConfigs.size > 0
      ? startPages({ store: runtimeStore, clock, owner, configs: pageConfigs, agents: dispatchAgents, metrics, report, links: ackServers })
      : null;
    if (pages) closers.push({ name: 'page engine', close: () => pages.close() });
    // One-time ack links (§18.6): a listener per agent that has a page engine and an ack source.
    if (pages) {
      for (const loaded of deps.agents) {
        if (loaded.ackSource === undefined || !pageConfigs.has(loaded.agent.id)) continue;
        const server = createAckLinkServer({ agentId: loaded.agent.id, source: loaded.ackSource, engine: pages.engine, store: runtimeStore,
          clock, log: agentLog(loaded.agent.id), report });
        await server.start();
        ackServers.set(loaded.agent.id, server);
        closers.push({ name: `ack links ${loaded.ackSource.id}`, close: () => server.close() });
      }
      // Slack button clicks (§18.2): a listener per agent that has a page engine and a slack source.
      for (const loaded of deps.agents) {
        const config = pageConfigs.get(loaded.agent.id);
        if (loaded.slackSource === undefined || config === undefined) continue;
        const server = createSlackActionsServer({ agentId: loaded.agent.id, source: loaded.slackSource,
          slackChannelIds: loaded.channels.filter((c) => c.type === 'slack').map((c) => c.id), people: () => config.people,
          engine: pages.engine, store: runtimeStore, clock, log: agentLog(loaded.agent.id), report });
        await server.start();
        closers.push({ name: `slack source ${loaded.slackSource.id}`, close: () => server.close() });
      }
    }

    const dispatcher = createDispatcher({ store: runtimeStore, agents: dispatchAgents, stats, clock, owner,
      leaseMs: deps.store.leaseMs, deliveryWindowMs: deps.store.deliveryWindowMs ?? DEFAULT_DELIVERY_WINDOW_MS,
      metrics: {
        channelOutcome: (agent, channel, outcome) => metrics.dispatch.channelMessages.inc({ agent, channel, outcome }),
        latency: (agent, seconds) => metrics.dispatch.latencySeconds.observe({ agent }, seconds),
      },
      gate: duties.gate,
      onError: (err) => report(`dispatcher error: ${errorText(err)}`) });
    closers.push({ name: 'dispatcher', close: () => dispatcher.drain(DRAIN_TIMEOUT_MS) });

    const ingest = createWebhookIngest({
      store: runtimeStore, clock, stats, windowMs: IDEMPOTENCY_WINDOW_MS,
      routes: deps.agents.flatMap((a) => a.sources.map((source) => ({ agentId: a.agent.id, source,
        log: agentLog(a.agent.id) }))),
      // A suppressed event (a live silence covered it, §17.8) is stored finished: counted, never dispatched.
      onAccepted: (event) => (event.status === 'suppressed' ? metrics.oncall.suppressed.inc({ agent: event.agentId }) : dispatcher.wake(event.agentId)),
      ...(pages ? { onDelivery: (agentId: string, sourceId: string, payloadText: string) => pages.onDelivery(agentId, sourceId, payloadText) } : {}),
      rejected: (source, reason) => metrics.ingest.rejected.inc({ source, reason }),
      onError: (err) => report(`ingest error: ${errorText(err)}`),
    });
    await ingest.start();
    closers.push({ name: 'ingest', close: () => ingest.close() });

    // Events accepted before a crash or shutdown and not yet handled are in the store: claiming starts now.
    dispatcher.start();
    pages?.start();
    if (released > 0) report(`gave back ${released} claim(s) left by the previous run`);

    let stopping = false;
    const serversByAgent = new Map(deps.agents.map((a) => [a.agent.id,
      a.agent.mcpServers.flatMap((m) => { const server = servers.get(m.id); return server ? [server] : []; })]));
    const agentIds = deps.agents.map((a) => a.agent.id);
    const listenerCount = new Set(deps.agents.flatMap((a) => a.sources.map((s) => `${s.bind}:${s.port}`))).size;
    const readiness = createReadiness({ store, clock, report, stopping: () => stopping,
      notListening: () => (ingest.ports().length < listenerCount ? [`${listenerCount - ingest.ports().length} of ${listenerCount} ingest listener(s)`] : []) });
    metrics.daemon.readiness(async () => (await readiness()).ready);
    const controlPlane = await startControlPlane({
      settings: deps.controlPlane, store, metrics, clock, report,
      agents: () => agentIds,
      oncall: { configs: () => [...(deps.oncall ?? [])].map(([agentId, config]) => ({ agentId, config })),
        overrides: (agentId, endsAfterMs) => store.oncall.listOverrides(agentId, endsAfterMs) },
      logPath: (id) => paths.log(id),
      readiness,
      snapshot: createStatusSnapshot({ pid: deps.pid, startedAtMs: Date.parse(startedAt), clock, agents: deps.agents,
        channels: channelsByAgent, stats, store: { kind: store.kind, replica: replicaId, leader: () => duties.leader(), retention: deps.store.retention },
        stopping: () => stopping,
        mcpServers: (agentId) => (serversByAgent.get(agentId) ?? []).map((s) => s.status()),
        auditExport: () => duties.exportStatus(),
        logWriteFailures: (agentId) => logs.get(agentId)?.failures() ?? 0,
        oncall: (agentId) => pages?.status(agentId) ?? null,
        controlPlane: () => ({ ...deps.controlPlane, port: controlPlane?.port() ?? deps.controlPlane.port }) }),
    });
    // Kept answering (state "stopping") until the stop is recorded, so operators can watch the drain.
    if (controlPlane) {
      closers.splice(closers.findIndex((c) => c.name === STOP_RECORD), 0, { name: 'control plane', close: () => controlPlane.close() });
    }

    await runtimeStore.appendAudit({ kind: 'runtime.started', actor: 'svc', agentId: null,
      data: { pid: deps.pid, version: deps.version, agents: deps.agents.map((a) => a.agent.id),
        ingestPorts: ingest.ports(), controlPlanePort: controlPlane?.port() ?? null, released } }, clock.now());
    started = true;

    // The only door for changes (contract §13); closed first on shutdown, so no replay or backup
    // starts while the rest drains.
    let admin: AdminSocket | null = null;
    if (deps.adminSocket !== false) {
      admin = await startAdminSocket({ path: paths.adminSocket, store: runtimeStore, storePath: deps.store.kind === 'sqlite' ? deps.store.path : null,
        clock, pid: deps.pid, wake: () => dispatcher.wake(), report, oncall: { engine: pages?.engine ?? null, configs: pageConfigs } });
      const opened = admin;
      closers.push({ name: 'admin socket', close: () => opened.close() });
    }

    let closing: Promise<void> | null = null;
    return {
      startedAt,
      store,
      stats,
      ingestPorts: () => ingest.ports(),
      controlPlanePort: () => controlPlane?.port() ?? null,
      agentIds: () => agentIds,
      reopenLogs() {
        for (const log of logs.values()) log.reopen?.();
        for (const channel of channels) channel.reopen?.();
        report(`reopened ${logs.size} agent log(s) and the file channels`);
      },
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
    // Real providers: where the key is sent (origin only), which tools the model may see, the loop's bounds.
    llm: agent.baseUrl ? { origin: new URL(agent.baseUrl).origin, tools: agent.tools ?? null, ...agent.llm } : null,
    skills: loaded.skills.map((s) => ({ path: s.path, sha256: sha256(s.text) })),
    sources: loaded.sources.map((s) => ({ id: s.id, type: s.type, bind: s.bind, port: s.port,
      timestampHeader: s.timestampHeader ?? null })),
    channels: loaded.channels.map((c) => ({ id: c.id, type: c.type, direction: c.direction })),
    dispatch: agent.dispatch,
    // Values here are resolved (`${secret:…}` in args, a token in a collector URL), and the audit chain
    // is immutable and shipped to the SIEM: a digest shows a change without showing the value.
    mcpServers: agent.mcpServers.map((m) => ({ id: m.id, commandSha256: sha256(JSON.stringify([m.command, ...m.args])),
      args: m.args.length, envKeys: Object.keys(m.env).sort() })),
    rateLimits: agent.rateLimits,
    rulesLookup: agent.rules.lookup ?? null,
    auditExport: agent.audit?.export.map((e) => ({ id: e.id, type: e.type,
      target: e.type === 'http' ? new URL(e.url).origin : e.address })) ?? [],
  };
  return shape;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The daemon's `audit` block: the agents that set it agree (checked by the loader), so the first one speaks for all. */
function daemonAuditConfig(agents: readonly LoadedAgent[]): AuditConfig | null {
  return agents.find((a) => a.agent.audit !== undefined)?.agent.audit ?? null;
}

/** Agent log records hold flat values; anything structured is written as its JSON text. */
function logFields(fields: Record<string, unknown>): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value)
      ? value as LogFields[string] : JSON.stringify(value);
  }
  return out;
}
