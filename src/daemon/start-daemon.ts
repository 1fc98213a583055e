/**
 * The composition root: starts the daemon's parts in phases — store, telemetry, leader duties, agent
 * logs, MCP servers, agents and channels, backlog gauge, page engine and its listeners, dispatcher,
 * ingest, control plane, admin socket — each registering its closer; shutdown runs them in the order
 * declared in close-order.ts. A config reload (config-reload.ts) swaps what can change live.
 */
import { hostname } from 'node:os';
import type { OtlpSettings } from '../config/otlp.js';
import type { DaemonSettings } from '../config/settings.js';
import { DEFAULT_DELIVERY_WINDOW_MS } from '../config/store.js';
import type { LoadedAgent } from '../config/schema.js';
import { createSharedReads, startControlPlane } from '../control-plane/start-control-plane.js';
import { homePaths } from '../config/paths.js';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import { createWebhookIngest } from '../ingest/webhook-server.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { LogMirror } from '../logs/agent-log.js';
import { startOtlpBridge } from '../metrics/otlp-bridge.js';
import { createMetrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import { createDispatcher } from '../runtime/dispatch/dispatcher.js';
import { startFactsWarmer } from '../report/facts-warmer.js';
import { reportFactsCache } from '../report/report-cache.js';
import { DAY_MS, DEFAULT_REPORT_DAYS } from '../report/report-query.js';
import { reportAtTurn } from '../control-plane/routes/report-route.js';
import { startBacklogGauge } from '../runtime/backlog-gauge.js';
import { notifyingStore } from './notifying-store.js';
import type { SourceStats } from '../metrics/source-stats.js';
import { createSourceStats } from '../metrics/source-stats.js';
import { startLeaderDuties } from './leader-duties.js';
import { startPages } from './start-pages.js';
import { strandedInStore } from './reload-stranded.js';
import type { AckLinkServer } from './ack-link-server.js';
import { runOwner } from './replica-id.js';
import { createStatusSnapshot } from './status-snapshot.js';
import { storeIdentity } from './store-identity.js';
import { ADMIN_ACTOR, createAdminOperations } from './admin-operations.js';
import { startAdminSocket } from './admin-socket.js';
import { calendarSecret } from './calendar-secret.js';
import { startTeamConsole } from './console/start-team-console.js';
import { checkCalendarKey } from '../oncall/calendar-key.js';
import { checkNewestCheckpoints } from '../export/newest-checkpoints.js';
import { createReadiness } from './readiness.js';
import { createClosers } from './close-order.js';
import type { AgentSet } from './agent-set.js';
import { buildAgentSet } from './agent-set.js';
import type { DaemonConfig, ReloadResult } from './config-reload.js';
import { createConfigReload } from './config-reload.js';
import { sameConfig } from './reload-plan.js';
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Channel } from '../runtime/channels/channel.js';
import { configSummary, daemonAuditConfig } from './config-summary.js';
import { openDaemonStore } from './open-daemon-store.js';
import { startAgentLogs } from './start-agent-logs.js';
import { startMcpServers } from './start-mcp-servers.js';
import { startPageListeners } from './start-page-listeners.js';
import { createListenerRegistry } from './listener-registry.js';
import { listenerAuthority, sourceUrl } from '../config/source-url.js';
import { startReceiptDuty } from '../runtime/oncall/receipt-duty.js';

export interface DaemonDeps {
  agents: LoadedAgent[];
  /** Each agent's oncall.yaml, by agent id (oncall/load-oncall.ts); an agent without one pages as before (§17). */
  oncall?: ReadonlyMap<string, OncallConfig>;
  /** Resolved once by the config layer (config/settings.ts): control plane, store and its window, listeners, waits. */
  settings: DaemonSettings;
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
  /**
   * Loads the configuration again exactly as `svc up` did (its directories, its .env files) for a
   * config reload; absent, reloads are refused.
   */
  loadConfig?: () => DaemonConfig;
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
  /** `svc reload` and SIGHUP (config-reload.ts); `actor` names who asked in the audit row. */
  reload(actor: string): Promise<ReloadResult>;
  close(): Promise<void>;
}

export async function startDaemon(deps: DaemonDeps): Promise<Daemon> {
  const { clock, report, settings } = deps;
  const paths = homePaths(deps.home);
  const startedAt = isoTs(clock.now());
  const closers = createClosers(report);
  const agentIds = deps.agents.map((a) => a.agent.id);
  /** Subsystems without an agent (OTLP, SIEM export) log one line per record to the daemon's output. */
  const daemonLog = (level: string, event: string, fields: Record<string, unknown>): void => report(`${level} ${event} ${JSON.stringify(fields)}`);

  try {
    const opened = await openDaemonStore({ settings, clock,
      replicaIdPath: paths.replicaId, report });
    closers.add('store', () => opened.close());
    const { store, replicaId, released } = opened;
    const stats = createSourceStats();
    const audit = daemonAuditConfig(deps.agents);
    const metrics = createMetrics({ stats, agents: deps.agents.map((a) => ({ id: a.agent.id, sources: a.sources.map((s) => s.id),
      channels: a.channels.map((c) => c.id), receiptChannels: a.channels.filter((c) => c.type === 'pushover').map((c) => c.id) })),
      mcpServers: deps.agents.flatMap((a) => a.agent.mcpServers.map((m) => m.id)), exporters: audit?.export.map((e) => e.id) ?? [],
      processMetrics: true });
    if (deps.otlp) {
      const bridge = await startOtlpBridge({ registry: metrics.registry, settings: deps.otlp, serviceName: 'svc',
        serviceVersion: deps.version, log: daemonLog });
      closers.add('otlp bridge', () => bridge.close());
    }

    // SIEM export and retention run on the replica holding the leader lease (always this one with
    // SQLite). Export reads the chain behind the store; every append wakes it, and its gate pauses intake.
    const owner = runOwner(replicaId);
    const duties = await startLeaderDuties({ store, clock, holder: owner, leaseMs: settings.store.leaseMs, audit, auditMetrics: metrics.audit,
      retention: settings.store.retention, windowMs: settings.store.idempotencyWindowMs, hostname: hostname(), pid: deps.pid, log: daemonLog, report,
      checkpointsPath: paths.checkpoints });
    closers.add('leader duties', () => duties.close());
    const runtimeStore = audit && audit.export.length > 0 ? notifyingStore(store, () => duties.notify()) : store;

    const logs = startAgentLogs({ agentIds, path: (id) => paths.log(id), clock, report, ...(deps.logMirror ? { mirror: deps.logMirror } : {}) });
    closers.add('agent logs', () => logs.close());
    const mcp = await startMcpServers({ agents: deps.agents, logs, metrics, clock, baseEnv: deps.mcpBaseEnv, startWaitMs: settings.mcpStartWaitMs });
    closers.add('mcp servers', () => mcp.close());

    const buildDeps = { logs, audit: (entry: NewAuditEntry) => runtimeStore.appendAudit(entry, clock.now()), metrics, servers: mcp.servers, clock };
    let agentSet = buildAgentSet(deps.agents, buildDeps);
    // Every channel open now. A reload's retired ones may still carry an event under way: each closes once
    // the work that could hold it has finished (below), and whatever is left closes at shutdown.
    const allChannels = new Set<Channel>(agentSet.channels);
    const retiring = new Set<Promise<void>>();
    closers.add('channels', async () => {
      await Promise.allSettled([...retiring]);
      await Promise.all([...allChannels].map((c) => c.close()));
    });
    for (const loaded of deps.agents) {
      const { agent } = loaded;
      for (const source of loaded.sources) stats.get(agent.id, source.id);
      await runtimeStore.appendAudit({ kind: 'config.loaded', actor: 'svc', agentId: agent.id, data: configSummary(loaded) }, clock.now());
      logs.get(agent.id).write('info', 'config.loaded', { dir: loaded.dir, provider: agent.provider,
        sources: loaded.sources.length, channels: loaded.channels.length, mcpServers: agent.mcpServers.length });
      if (agent.shadow === true) {
        logs.get(agent.id).write('warn', 'shadow.run', { channels: loaded.channels.map((c) => c.id).join(','),
          outcome: 'every round is recorded, no channel is called' });
      }
    }
    // A shadow run (§22.3) says so loudly at the start: the daemon's own output is where an operator looks first.
    const shadowAgents = deps.agents.filter((a) => a.agent.shadow === true).map((a) => a.agent.id);
    if (shadowAgents.length > 0) {
      report(`SHADOW RUN: ${shadowAgents.join(', ')} ${shadowAgents.length === 1 ? 'pages' : 'page'} nobody: every round is recorded, `
        + 'no channel is called (svc shadow report shows who would have been woken)');
    }
    let started = false;
    closers.add('stop record', async () => {
      if (!started) return; // a failed start records nothing it did not begin
      const left = (await store.backlog()).reduce((n, c) => n + c.count, 0);
      await runtimeStore.appendAudit({ kind: 'runtime.stopped', actor: 'svc', agentId: null,
        data: { pid: deps.pid, pendingForNextStart: left } }, clock.now());
    });

    const backlog = startBacklogGauge({ store, clock, metrics: metrics.dispatch, stats, agents: agentIds,
      onError: (err) => report(`backlog count failed: ${errorText(err)}`) });
    await backlog.refresh();
    closers.add('backlog gauge', () => backlog.close());

    // Every listener registers itself for /status (`svc ps`), whatever its kind (contract §25.3).
    const listeners = createListenerRegistry();
    // The agents as a config reload last loaded them (the Telegram bots polled follow their channels).
    let loadedAgents: readonly LoadedAgent[] = deps.agents;
    // Agents with an oncall.yaml page through the page engine (contract §17); it stops before the channels close.
    const pageConfigs = new Map<string, OncallConfig>(deps.oncall ?? []);
    const ackServers = new Map<string, AckLinkServer>();
    const deliveryWindowMs = settings.store.deliveryWindowMs ?? DEFAULT_DELIVERY_WINDOW_MS;
    const pages = pageConfigs.size > 0
      ? startPages({ store: runtimeStore, clock, owner, configs: pageConfigs, agents: agentSet.agents, metrics, report, links: ackServers,
        deliveryWindowMs })
      : null;
    if (pages) {
      closers.add('page engine', () => pages.close());
      const answering = await startPageListeners({ agents: deps.agents, configs: pageConfigs, engine: pages.engine, store: runtimeStore,
        clock, logs, report, ackServers, listeners, leader: () => duties.leader(), currentAgents: () => loadedAgents });
      closers.add('page listeners', () => answering.close());
      // Pushover's emergency receipts (§21.3), watched by the leader; stopped with the page listeners, before the engine and channels.
      const engine = pages.engine;
      const receipts = duties.add({ start: () => startReceiptDuty({ receipts: runtimeStore.receipts, clock, engine,
        channel: (agentId, channelId) => agentSet.channelsByAgent.get(agentId)?.find((c) => c.id === channelId),
        log: (agentId, level, event, fields) => (agentIds.includes(agentId) ? logs.get(agentId).write(level, event, fields)
          : daemonLog(level, event, { agentId, ...fields })), metrics: metrics.receipts,
        onError: (err) => report(`pushover receipts: ${errorText(err)}`) }) });
      closers.add('page listeners', () => receipts.close());
    }

    const dispatcher = createDispatcher({ store: runtimeStore, agents: agentSet.agents, stats, clock, owner,
      leaseMs: settings.store.leaseMs, deliveryWindowMs,
      metrics: {
        channelOutcome: (agent, channel, outcome) => metrics.dispatch.channelMessages.inc({ agent, channel, outcome }),
        latency: (agent, seconds) => metrics.dispatch.latencySeconds.observe({ agent }, seconds),
      },
      gate: duties.gate,
      onError: (err) => report(`dispatcher error: ${errorText(err)}`) });
    closers.add('dispatcher', () => dispatcher.drain(settings.drainTimeoutMs));

    const ingest = createWebhookIngest({
      store: runtimeStore, clock, stats,
      routes: deps.agents.flatMap((a) => a.sources.map((source) => ({ agentId: a.agent.id, source, log: logs.get(a.agent.id) }))),
      // A suppressed event (a live silence covered it, §17.8) is stored finished: counted, never dispatched.
      onAccepted: (event) => (event.status === 'suppressed' ? metrics.oncall.suppressed.inc({ agent: event.agentId }) : dispatcher.wake(event.agentId)),
      ...(pages ? { onDelivery: (agentId: string, sourceId: string, payloadText: string) => pages.onDelivery(agentId, sourceId, payloadText) } : {}),
      rejected: (source, reason) => metrics.ingest.rejected.inc({ source, reason }),
      onError: (err) => report(`ingest error: ${errorText(err)}`),
    });
    await ingest.start();
    closers.add('ingest', () => ingest.close());
    for (const loaded of deps.agents) {
      for (const source of loaded.sources) {
        // The ingest binds one server per bind and port, in the order of settings.listeners.
        const at = settings.listeners.findIndex((l) => l.bind === source.bind && l.port === source.port);
        const port = (): number => ingest.ports()[at] ?? source.port;
        listeners.add({ kind: 'ingest', agent: loaded.agent.id, source: source.id, bind: source.bind, port,
          url: () => sourceUrl(source, { port: port() }) });
      }
    }

    // Events accepted before a crash or shutdown and not yet handled are in the store: claiming starts now.
    dispatcher.start();
    pages?.start();
    if (released > 0) report(`gave back ${released} claim(s) left by the previous run`);

    let stopping = false;
    const listenerCount = settings.listeners.length;
    const readiness = createReadiness({ store, clock, report, stopping: () => stopping, pagerProblems: () => pages?.problems() ?? [],
      notListening: () => (ingest.ports().length < listenerCount ? [`${listenerCount - ingest.ports().length} of ${listenerCount} ingest listener(s)`] : []) });
    metrics.daemon.readiness(async () => (await readiness()).ready);
    const storeId = await storeIdentity(store);
    const statusOf = (agents: readonly LoadedAgent[], set: AgentSet): (() => string) => createStatusSnapshot({ pid: deps.pid,
      startedAtMs: Date.parse(startedAt), clock, agents, channels: set.channelsByAgent, stats,
      store: { kind: store.kind, id: storeId, replica: replicaId, leader: () => duties.leader(), retention: settings.store.retention },
      stopping: () => stopping,
      mcpServers: (agentId) => mcp.ofAgent(agentId).map((s) => s.status()),
      auditExport: () => duties.exportStatus(),
      checkpoints: () => duties.checkpointStatus(),
      logWriteFailures: (agentId) => logs.failures(agentId),
      oncall: (agentId) => pages?.status(agentId) ?? null,
      listeners: () => listeners.list(),
      controlPlane: () => ({ ...settings.controlPlane, port: controlPlane?.port() ?? settings.controlPlane.port }) });
    let snapshot = statusOf(deps.agents, agentSet);
    // Reports ask each agent's channels' types (contract §23: which rounds wake someone); a reload swaps them.
    const typesOf = (agents: readonly LoadedAgent[]): Map<string, ReadonlyMap<string, string>> =>
      new Map(agents.map((a) => [a.agent.id, new Map(a.channels.map((c) => [c.id, c.type]))]));
    let channelTypes = typesOf(deps.agents);
    const oncallReads = { configs: () => [...pageConfigs].map(([agentId, config]) => ({ agentId, config })),
      overrides: (agentId: string, endsAfterMs: number) => store.oncall.listOverrides(agentId, endsAfterMs) };
    // The readers the control plane and the team console share: one gate, one chain watermark, one tailer per log file, one report at a time.
    // Reports' kept facts (contract §23.2), started from the store's checkpoint and kept warm in the background.
    const reportFacts = reportFactsCache(store.oncall.reportReads, clock, { checkpoints: store.oncall.reportFacts, log: daemonLog });
    const shared = createSharedReads(store, clock, { configs: oncallReads.configs,
      channelTypes: (agentId) => channelTypes.get(agentId) ?? new Map<string, string>(), facts: reportFacts });
    closers.add('shared reads', () => shared.close());
    // The default report (the last DEFAULT_REPORT_DAYS) computed at its turn after the first catch-up, as GET /report would: its interruptions kept.
    const primeReport = async (): Promise<void> => {
      const untilMs = clock.now();
      await reportAtTurn(shared.reports, { sinceMs: untilMs - DEFAULT_REPORT_DAYS * DAY_MS, untilMs, agent: null, by: null }, new AbortController().signal);
    };
    const factsWarmer = startFactsWarmer({ facts: reportFacts, clock, log: daemonLog, prime: primeReport });
    closers.add('report facts', () => factsWarmer.close());
    // Calendar subscription keys (§24.7): checked against the secret as it is now (rotating it revokes every URL).
    const calendar = calendarSecret(deps.home);
    const calendarKeys = { check: (agentId: string, scheduleId: string, key: string) => {
      const secret = calendar.current();
      return secret === null ? false as const : checkCalendarKey(secret, agentId, scheduleId, key);
    } };
    const controlPlane = await startControlPlane({
      settings: settings.controlPlane, store, metrics, clock, report,
      agents: () => agentIds,
      shadowAgents: () => shadowAgents,
      oncall: oncallReads,
      logPath: (id) => paths.log(id),
      readiness,
      snapshot: () => snapshot(),
      checkpoints: () => checkNewestCheckpoints(store, paths.checkpoints),
      shared,
      ...(settings.controlPlane.publicUrl === null ? {} : { calendarKeys }),
    });
    if (controlPlane) {
      closers.add('control plane', () => controlPlane.close());
      const { bind } = settings.controlPlane;
      listeners.add({ kind: 'control-plane', agent: null, source: null, bind, port: () => controlPlane.port(),
        url: () => `http://${listenerAuthority(bind, controlPlane.port(), false)}` });
    }

    await runtimeStore.appendAudit({ kind: 'runtime.started', actor: 'svc', agentId: null,
      data: { pid: deps.pid, version: deps.version, agents: agentIds, ...(shadowAgents.length > 0 ? { shadow: shadowAgents } : {}),
        ingestPorts: ingest.ports(), controlPlanePort: controlPlane?.port() ?? null, released } }, clock.now());
    started = true;

    const reopenLogs = (): void => {
      const count = logs.reopen();
      for (const channel of agentSet.channels) channel.reopen?.();
      report(`reopened ${count} agent log(s) and the file channels`);
    };

    // A reload builds anew the agents it changed (an agent it did not change is kept whole, its rate-limit
    // buckets too), keeping each channel whose configuration did not change; the page engine, then the
    // dispatcher, take the new builds; events under way finish with the old ones.
    const configReload = createConfigReload({
      initial: { agents: deps.agents, oncall: pageConfigs, controlPlane: settings.controlPlane, store: settings.store, otlp: deps.otlp },
      load: deps.loadConfig ?? (() => { throw new Error('this daemon was started without its directories: restart it to change its configuration'); }),
      apply(next, previous, plan) {
        const old = agentSet;
        const untouched = new Set(plan.agents.filter((a) => a.keys.length + a.channelsAdded.length + a.channelsRemoved.length
          + a.channelsChanged.length === 0).map((a) => a.agentId));
        const set = buildAgentSet(next.agents, { ...buildDeps,
          keepAgent: (agentId) => (untouched.has(agentId) ? old.agents.find((a) => a.id === agentId) : undefined),
          keep: (agentId, config) => {
            const was = previous.agents.find((a) => a.agent.id === agentId)?.channels.find((c) => c.id === config.id);
            return was !== undefined && sameConfig(was, config) ? old.channelsByAgent.get(agentId)?.find((c) => c.id === config.id) : undefined;
          } });
        for (const [agentId, config] of next.oncall) pageConfigs.set(agentId, config);
        loadedAgents = next.agents;
        const underWay: Array<Promise<void>> = [];
        for (const agent of set.agents.filter((a) => !old.agents.includes(a))) {
          if (pages) underWay.push(pages.replaceAgent(agent));
          underWay.push(dispatcher.replaceAgent(agent));
        }
        for (const channel of set.channels) allChannels.add(channel);
        agentSet = set;
        snapshot = statusOf(next.agents, set);
        channelTypes = typesOf(next.agents);
        // Links in messages from now on start with the ack source's new publicUrl (the listener stays).
        for (const loaded of next.agents) ackServers.get(loaded.agent.id)?.usePublicUrl(loaded.ackSource?.publicUrl);
        const retired = old.channels.filter((c) => !set.channels.includes(c));
        if (retired.length > 0) {
          for (const channel of retired) allChannels.delete(channel);
          const closing: Promise<void> = Promise.allSettled(underWay)
            .then(() => Promise.allSettled(retired.map((c) => c.close())))
            .then((closed) => {
              const failed = closed.filter((r) => r.status === 'rejected').length;
              report(`closed ${retired.length - failed} channel(s) the reload retired${failed > 0 ? `; ${failed} failed to close` : ''}`);
            })
            .finally(() => retiring.delete(closing));
          retiring.add(closing);
        }
      },
      audit: (entry) => runtimeStore.appendAudit(entry, clock.now()).then(() => undefined),
      report,
      stranded: (next) => strandedInStore(runtimeStore, next, clock.now()),
    });

    // What the doors for changes do (contract §13): the admin socket, and the team console in process.
    const operations = createAdminOperations({ store: runtimeStore, storePath: settings.store.kind === 'sqlite' ? settings.store.path : null,
      clock, pid: deps.pid, wake: () => dispatcher.wake(), report,
      oncall: { engine: pages?.engine ?? null, configs: pageConfigs,
        calendar: { publicUrl: () => settings.console?.publicUrl ?? settings.controlPlane.publicUrl, secret: calendar } },
      // `svc reload` is what SIGHUP is, with an answer (`systemctl reload` runs it after a log rotation too).
      reload: () => { reopenLogs(); return configReload.reload(ADMIN_ACTOR); } });
    if (deps.adminSocket !== false) {
      const admin = await startAdminSocket({ path: paths.adminSocket, store: runtimeStore, storePath: null, clock, pid: deps.pid,
        wake: () => dispatcher.wake(), report, operations });
      closers.add('admin socket', () => admin.close());
    }
    // The team console (§24.6): its own listener; the control plane stays read-only.
    const team = await startTeamConsole({ settings: settings.console, store, shared, oncall: { ...oncallReads, clock }, calendarKeys, operations,
      snapshot: () => snapshot(), agents: () => agentIds, logPath: (id) => paths.log(id), shadowAgents: () => shadowAgents, listeners, clock, report });
    if (team !== null) closers.add('team console', () => team.close());

    let closing: Promise<void> | null = null;
    return {
      startedAt,
      store,
      stats,
      ingestPorts: () => ingest.ports(),
      controlPlanePort: () => controlPlane?.port() ?? null,
      agentIds: () => agentIds,
      reopenLogs,
      reload: (actor) => configReload.reload(actor),
      close() {
        closing ??= (async () => {
          stopping = true;
          await closers.closeAll();
        })();
        return closing;
      },
    };
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}
