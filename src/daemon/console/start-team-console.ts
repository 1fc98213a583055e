/**
 * Starts the team console (contract §24.6) when agent.yaml has a `console:` block: its routes are the
 * control plane's console routes over the shared readers, its sign-in the OIDC client the block names,
 * its actions the daemon's admin operations; it registers itself as a `console` listener for /status
 * (`svc ps`). Returns its closer, or null when there is no block.
 */
import { createOidcSignIn } from '../../auth/oidc-sign-in.js';
import type { ConsoleConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { createLogsRoute } from '../../control-plane/routes/logs-route.js';
import type { CalendarKeyCheck, OncallRouteDeps } from '../../control-plane/routes/oncall-route.js';
import { createOncallCalendarRoute } from '../../control-plane/routes/oncall-route.js';
import type { SharedReads } from '../../control-plane/start-control-plane.js';
import { createUiRoute } from '../../control-plane/ui/ui-route.js';
import type { Store } from '../../store/store.js';
import type { AdminOperations } from '../admin-operations.js';
import type { ListenerRegistry } from '../listener-registry.js';
import type { TeamConsole } from './team-console.js';
import { createTeamConsole } from './team-console.js';

export interface StartTeamConsoleDeps {
  settings: ConsoleConfig | null;
  store: Store;
  shared: SharedReads;
  oncall: OncallRouteDeps;
  calendarKeys: CalendarKeyCheck;
  operations: AdminOperations;
  snapshot: () => string;
  agents: () => readonly string[];
  logPath: (agentId: string) => string;
  /** The agents in a shadow run (§22.3): the team console shows the banner too. */
  shadowAgents: () => readonly string[];
  listeners: ListenerRegistry;
  clock: Clock;
  report: (line: string) => void;
}

export async function startTeamConsole(deps: StartTeamConsoleDeps): Promise<TeamConsole | null> {
  const { settings, clock, report } = deps;
  if (settings === null) return null;
  const base = settings.publicUrl.replace(/\/+$/, '');
  const signIn = createOidcSignIn({ issuer: settings.oidc.issuer, clientId: settings.oidc.clientId, clientSecret: settings.oidc.clientSecret,
    resource: null, scopes: settings.oidc.scopes, redirectUri: `${base}/auth/callback` });
  const uiDeps = { store: deps.store, gate: deps.shared.gate, watermark: deps.shared.watermark, oncall: deps.oncall, snapshot: deps.snapshot,
    agents: deps.agents, logPath: deps.logPath, jsonLinks: false, shadow: deps.shadowAgents,
    reports: deps.shared.reports, report };
  const team = createTeamConsole({
    settings,
    routes: {
      ui: (viewerOf) => createUiRoute(uiDeps, { viewer: viewerOf }),
      logs: createLogsRoute({ agents: deps.agents, logPath: deps.logPath, tailers: deps.shared.tailers, clock }),
      calendar: createOncallCalendarRoute(deps.oncall, deps.calendarKeys),
    },
    configs: () => deps.oncall.configs(),
    operations: deps.operations,
    signIn,
    clock,
    report,
  });
  await team.start();
  deps.listeners.add({ kind: 'console', agent: null, source: null, bind: settings.bind, port: () => team.port(), url: () => base });
  return team;
}
