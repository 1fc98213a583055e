/**
 * Builds the control plane of a running daemon: every route of the specification over the live
 * store, counters, logs and metrics, behind the listener. Returns null when the listener is disabled.
 */
import { createAuthGuard } from './auth-guard.js';
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { Clock } from '../core/clock.js';
import type { TailerRegistry } from '../logs/file-tailer.js';
import { createTailerRegistry } from '../logs/file-tailer.js';
import type { Metrics } from '../metrics/registry.js';
import type { NewestCheckpointsVerdict } from '../audit/check-checkpoints.js';
import type { Store } from '../store/store.js';
import type { ReadGate } from './read-gate.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from './read-gate.js';
import type { RouteHandler } from './route.js';
import type { ChainWatermark } from '../store/chain-watermark.js';
import { createChainWatermark } from '../store/chain-watermark.js';
import { createAuditRoute } from './routes/audit-route.js';
import { createCheckpointsRoute } from './routes/checkpoints-route.js';
import { createStoryRoute } from './routes/story-route.js';
import { createDlqRoute } from './routes/dlq-route.js';
import { createEventsRoute } from './routes/events-route.js';
import { createLogsRoute } from './routes/logs-route.js';
import { createMetricsRoute } from './routes/metrics-route.js';
import type { CalendarKeyCheck, OncallRouteDeps } from './routes/oncall-route.js';
import { createOncallCalendarRoute, createOncallRoute } from './routes/oncall-route.js';
import { createPageRoute, createPagesRoute, createSilencesRoute } from './routes/pages-route.js';
import type { ReportSources } from '../report/read-report.js';
import { reportFactsCache } from '../report/report-cache.js';
import type { Reports } from './routes/report-route.js';
import { createReportRoute } from './routes/report-route.js';
import type { Readiness } from './routes/health-route.js';
import { createHealthzRoute, createReadyzRoute } from './routes/health-route.js';
import { createShadowRoute } from './routes/shadow-route.js';
import { createStatusRoute } from './routes/status-route.js';
import type { AuthGuard, ControlPlane } from './server.js';
import { createControlPlane } from './server.js';
import { CONSOLE_HEADERS } from './ui/console-headers.js';
import { createUiRoute } from './ui/ui-route.js';

export interface ControlPlaneDeps {
  settings: ControlPlaneSettings;
  store: Store;
  metrics: Metrics;
  /** The /status document as JSON text (shape: StatusSnapshot). */
  snapshot: () => string;
  agents: () => readonly string[];
  /** The agents in a shadow run (contract §22.3): the console says so on every view. */
  shadowAgents?: () => readonly string[];
  logPath: (agentId: string) => string;
  /** `/readyz` (contract §13): the store can be written and every source listens. */
  readiness: () => Promise<Readiness>;
  clock: Clock;
  report: (line: string) => void;
  /** `/oncall` and `/oncall/<schedule>.ics` (contract §17.9): the agents' schedules and the store's overrides. */
  oncall?: Omit<OncallRouteDeps, 'clock'>;
  /** `verify=1`: the chain held to the newest signed checkpoints (contract §20.2). */
  checkpoints?: () => Promise<NewestCheckpointsVerdict>;
  /** The readers shared with the team console; the control plane makes (and closes) its own when absent. */
  shared?: SharedReads;
  /** Calendar keys (§24.7): `/oncall/<S>.ics?key=` is served without a token when the key is good. */
  calendarKeys?: CalendarKeyCheck;
}

export interface RunningControlPlane {
  port(): number;
  close(): Promise<void>;
}

const NO_REPORT_SOURCES: Omit<ReportSources, 'store'> = { configs: () => [], channelTypes: () => new Map<string, string>() };

/**
 * What the control plane's readers share with the team console (daemon/console/), which serves the
 * same views: one read gate for the store's reader, one chain watermark (the whole chain verified once,
 * not once per listener), one log tailer per file.
 */
export interface SharedReads {
  gate: ReadGate;
  watermark: ChainWatermark;
  tailers: TailerRegistry;
  /** Reports (contract §23): one computed at a time, for GET /report and both consoles alike (each reads every page of its window). */
  reports: Reports;
  close(): void;
}

export function createSharedReads(store: Store, clock: Clock, reportSources: Omit<ReportSources, 'store'> = NO_REPORT_SOURCES): SharedReads {
  const tailers = createTailerRegistry({ clock });
  const gate = createReadGate(DEFAULT_READS_AT_ONCE);
  // The whole chain is verified once, from the start, in the store's verify threads: the first story
  // then need not wait for it (on a million rows that is the cost of one verify=1). A failure here
  // (the store closing at shutdown) only means the first story verifies it instead.
  const watermark = createChainWatermark(store, clock);
  void watermark.current().catch(() => undefined);
  // The facts of the pages reports read, kept between reports (report-cache.ts): built on the first unless given.
  // The daemon passes its own, which it keeps warm and checkpoints (report/facts-warmer.ts).
  const reports: Reports = { gate: createReadGate(1), sources: { store, ...reportSources,
    facts: reportSources.facts ?? reportFactsCache(store.oncall.reportReads, clock) } };
  return { gate, watermark, tailers, reports, close: () => tailers.close() };
}

export async function startControlPlane(deps: ControlPlaneDeps): Promise<RunningControlPlane | null> {
  if (!deps.settings.enabled) return null;
  const { store, report, settings } = deps;
  // Built first: settings that cannot work are a startup error, before anything listens.
  // The JOSE library is loaded only when tokens are required.
  const tokenVerifier = settings.auth
    ? (await import('../auth/verify-token.js')).createTokenVerifier(settings.auth, { clock: deps.clock }) : null;
  const guard: AuthGuard | null = settings.auth && tokenVerifier
    ? createAuthGuard(settings.auth, tokenVerifier, { clock: deps.clock, report })
    : null;
  const shared = deps.shared
    ?? createSharedReads(store, deps.clock, { ...NO_REPORT_SOURCES, ...(deps.oncall === undefined ? {} : { configs: deps.oncall.configs }) });
  const { tailers, watermark, gate: reads } = shared;
  const closeShared = (): void => { if (deps.shared === undefined) shared.close(); };
  const routes = new Map<string, RouteHandler>([
    ['/metrics', createMetricsRoute(deps.metrics, { onError: (err) => report(`metrics collect failed: ${String(err)}`) })],
    ['/status', createStatusRoute(deps.snapshot)],
    ['/events', createEventsRoute({ store, report, gate: reads })],
    ['/dlq', createDlqRoute({ store, report, gate: reads })],
    ['/audit', createAuditRoute({ store, report, gate: reads, ...(deps.checkpoints ? { checkpoints: deps.checkpoints } : {}) })],
    ['/audit/checkpoints', createCheckpointsRoute({ store, report, gate: reads })],
    ['/events/', createStoryRoute({ store, watermark, report, gate: reads })],
    ['/logs', createLogsRoute({ agents: deps.agents, logPath: deps.logPath, tailers, clock: deps.clock })],
    ['/healthz', createHealthzRoute()],
    ['/readyz', createReadyzRoute(deps.readiness)],
  ]);
  const oncall: OncallRouteDeps = { configs: () => [], overrides: () => Promise.resolve([]), ...deps.oncall, clock: deps.clock };
  routes.set('/ui/', createUiRoute({ store, gate: reads, watermark, oncall, reports: shared.reports, snapshot: deps.snapshot, agents: deps.agents,
    logPath: deps.logPath, jsonLinks: true, report, ...(deps.shadowAgents ? { shadow: deps.shadowAgents } : {}) }));
  routes.set('/report', createReportRoute({ reports: shared.reports, clock: deps.clock, report }));
  routes.set('/oncall', createOncallRoute(oncall));
  routes.set('/oncall/', createOncallCalendarRoute(oncall, deps.calendarKeys));
  routes.set('/pages', createPagesRoute({ store, report, clock: deps.clock }));
  routes.set('/pages/', createPageRoute({ store, report, clock: deps.clock }));
  routes.set('/silences', createSilencesRoute({ store, report, clock: deps.clock }));
  routes.set('/shadow', createShadowRoute({ store, gate: reads, report, configs: oncall.configs, shadowAgents: deps.shadowAgents ?? (() => []) }));
  const server: ControlPlane = createControlPlane({
    bind: settings.bind,
    port: settings.port,
    // Enabling auth makes the auth middleware reachable for remote Hosts (spec "Remote Host header check").
    allowRemote: settings.allowRemote,
    routes,
    guard,
    unauthenticated: new Set(['/healthz', '/readyz']),
    // A calendar app polls its URL without a token (§24.7): the key in it is checked by the route.
    ...(deps.calendarKeys === undefined ? {} : { keyed: (path: string, url: string) => path.startsWith('/oncall/') && /[?&]key=/.test(url) }),
    report,
    clock: deps.clock,
    maxConnections: settings.maxConnections,
    headersFor: (path) => (path.startsWith('/ui/') ? CONSOLE_HEADERS : undefined),
  });
  try {
    await server.start();
  } catch (err) {
    closeShared();
    tokenVerifier?.close();
    throw err;
  }
  return {
    port: () => server.port(),
    async close() {
      await server.close();
      closeShared();
      tokenVerifier?.close();
      },
  };
}
