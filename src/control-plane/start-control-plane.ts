/**
 * Builds the control plane of a running daemon: every route of the specification over the live
 * store, counters, logs and metrics, behind the listener. Returns null when the listener is disabled.
 */
import { createAuthGuard } from './auth-guard.js';
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { Clock } from '../core/clock.js';
import { createTailerRegistry } from '../logs/file-tailer.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from './read-gate.js';
import type { RouteHandler } from './route.js';
import { createChainWatermark } from '../store/chain-watermark.js';
import { createAuditRoute } from './routes/audit-route.js';
import { createCheckpointsRoute } from './routes/checkpoints-route.js';
import { createStoryRoute } from './routes/story-route.js';
import { createDlqRoute } from './routes/dlq-route.js';
import { createEventsRoute } from './routes/events-route.js';
import { createLogsRoute } from './routes/logs-route.js';
import { createMetricsRoute } from './routes/metrics-route.js';
import type { OncallRouteDeps } from './routes/oncall-route.js';
import { createOncallCalendarRoute, createOncallRoute } from './routes/oncall-route.js';
import { createPageRoute, createPagesRoute, createSilencesRoute } from './routes/pages-route.js';
import type { Reports } from './routes/report-route.js';
import { createReportRoute } from './routes/report-route.js';
import type { Readiness } from './routes/health-route.js';
import { createHealthzRoute, createReadyzRoute } from './routes/health-route.js';
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
  logPath: (agentId: string) => string;
  /** `/readyz` (contract §13): the store can be written and every source listens. */
  readiness: () => Promise<Readiness>;
  clock: Clock;
  report: (line: string) => void;
  /** `/oncall` and `/oncall/<schedule>.ics` (contract §17.9): the agents' schedules and the store's overrides. */
  oncall?: Omit<OncallRouteDeps, 'clock'>;
  /** Each agent's channels, id → `type` (channels.yaml as loaded): which rounds wake someone, for `/report` (contract §23). */
  channelTypes?: (agentId: string) => ReadonlyMap<string, string>;
}

export interface RunningControlPlane {
  port(): number;
  close(): Promise<void>;
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
  const tailers = createTailerRegistry({ clock: deps.clock });
  const reads = createReadGate(DEFAULT_READS_AT_ONCE);
  // The whole chain is verified once, from the start, in the store's verify threads: the first story
  // then need not wait for it (on a million rows that is the cost of one verify=1). A failure here
  // (the store closing at shutdown) only means the first story verifies it instead.
  const watermark = createChainWatermark(store);
  void watermark.current().catch(() => undefined);
  const routes = new Map<string, RouteHandler>([
    ['/metrics', createMetricsRoute(deps.metrics, { onError: (err) => report(`metrics collect failed: ${String(err)}`) })],
    ['/status', createStatusRoute(deps.snapshot)],
    ['/events', createEventsRoute({ store, report, gate: reads })],
    ['/dlq', createDlqRoute({ store, report, gate: reads })],
    ['/audit', createAuditRoute({ store, report, gate: reads })],
    ['/audit/checkpoints', createCheckpointsRoute({ store, report, gate: reads })],
    ['/events/', createStoryRoute({ store, watermark, report, gate: reads })],
    ['/logs', createLogsRoute({ agents: deps.agents, logPath: deps.logPath, tailers, clock: deps.clock })],
    ['/healthz', createHealthzRoute()],
    ['/readyz', createReadyzRoute(deps.readiness)],
  ]);
  const oncall: OncallRouteDeps = { configs: () => [], overrides: () => Promise.resolve([]), ...deps.oncall, clock: deps.clock };
  // One report computed at a time, for GET /report and the console alike: each reads every page of its window.
  const reports: Reports = { gate: createReadGate(1),
    sources: { store, configs: oncall.configs, channelTypes: deps.channelTypes ?? (() => new Map<string, string>()) } };
  routes.set('/ui/', createUiRoute({ store, gate: reads, watermark, oncall, reports, snapshot: deps.snapshot, agents: deps.agents, report }));
  routes.set('/report', createReportRoute({ reports, clock: deps.clock, report }));
  routes.set('/oncall', createOncallRoute(oncall));
  routes.set('/oncall/', createOncallCalendarRoute(oncall));
  routes.set('/pages', createPagesRoute({ store, report, clock: deps.clock }));
  routes.set('/pages/', createPageRoute({ store, report, clock: deps.clock }));
  routes.set('/silences', createSilencesRoute({ store, report, clock: deps.clock }));
  const server: ControlPlane = createControlPlane({
    bind: settings.bind,
    port: settings.port,
    // Enabling auth makes the auth middleware reachable for remote Hosts (spec "Remote Host header check").
    allowRemote: settings.allowRemote,
    routes,
    guard,
    unauthenticated: new Set(['/healthz', '/readyz']),
    report,
    clock: deps.clock,
    maxConnections: settings.maxConnections,
    headersFor: (path) => (path.startsWith('/ui/') ? CONSOLE_HEADERS : undefined),
  });
  try {
    await server.start();
  } catch (err) {
    tailers.close();
    tokenVerifier?.close();
    throw err;
  }
  return {
    port: () => server.port(),
    async close() {
      await server.close();
      tailers.close();
      tokenVerifier?.close();
      },
  };
}
