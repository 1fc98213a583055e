/**
 * Composition of the page engine (contract §17) for the daemon: the engine, the notifier over the
 * agents' channels, the timer loop, and the heartbeat hook for ingest. Agents with an oncall.yaml get
 * the engine as their dispatcher's `pages`; the others page their channels' own recipients as before.
 */
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { Metrics } from '../metrics/registry.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import { heartbeatsMatching } from '../oncall/heartbeat-match.js';
import type { AckLinks } from '../runtime/channels/channel.js';
import type { OncallStatus } from '../oncall/oncall-status.js';
import { oncallStatus } from '../oncall/oncall-status.js';
import type { DispatchAgent } from '../runtime/dispatch/handle-event.js';
import type { PageEngine } from '../runtime/oncall/page-engine.js';
import { createPageEngine } from '../runtime/oncall/page-engine.js';
import { createPageLoop } from '../runtime/oncall/page-loop.js';
import { createPageNotifier } from '../runtime/oncall/page-notifier.js';
import { personZone } from '../oncall/person-zone.js';
import type { HeartbeatSeen, OpenPageCount, Quarantined } from '../store/oncall-store.js';
import type { Store } from '../store/store.js';

export interface PagesDeps {
  store: Store;
  clock: Clock;
  owner: string;
  configs: ReadonlyMap<string, OncallConfig>;
  agents: readonly DispatchAgent[];
  metrics: Metrics;
  report: (line: string) => void;
  /** store.deliveryWindow, resolved once for the dispatcher and the pager alike. */
  deliveryWindowMs: number;
  /** The agents' ack-link sources (§18.6), by agent id: their links go into page messages. */
  links?: ReadonlyMap<string, { links(pageId: string, person: string, incarnation: number): AckLinks }>;
}

export interface Pages {
  engine: PageEngine;
  /** Ingest's hook: a delivery refreshes the heartbeats it matches. */
  onDelivery(agentId: string, sourceId: string, payloadText: string): void;
  /** The agent's on-call view for /status (§17.9), as of the page loop's last watch; null without an oncall.yaml. */
  status(agentId: string): OncallStatus | null;
  /**
   * A config reload's new build of an agent: its pages notify through its new channels from now on.
   * Settles when the sends already under way (which may hold the old build's channels) have finished.
   */
  replaceAgent(agent: DispatchAgent): Promise<void>;
  /** What keeps pages from escalating or their messages from going (readiness); empty when all is well. */
  problems(): string[];
  start(): void;
  close(): Promise<void>;
}

export function startPages(deps: PagesDeps): Pages {
  const { store, clock, configs, report } = deps;
  const onError = (err: unknown): void => report(`page engine error: ${errorText(err)}`);
  const oncallMetrics = deps.metrics.oncall;
  let openCounts: OpenPageCount[] = [];
  let seen: HeartbeatSeen[] = [];
  const byId = new Map(deps.agents.map((a) => [a.id, a]));
  // A row set aside (store/oncall-rows.ts): the store audited it; here it is logged and counted, never retried.
  const quarantined = (q: Quarantined): void => {
    oncallMetrics.quarantined(q.kind);
    report(`page engine: set aside ${q.kind} ${q.id}${q.agentId === null ? '' : ` of agent ${q.agentId}`}: ${q.reason}`);
  };
  const notifier = createPageNotifier({ store, clock, owner: deps.owner, agents: byId, onError, deliveryWindowMs: deps.deliveryWindowMs,
    channelOutcome: (agent, channel, outcome) => deps.metrics.dispatch.channelMessages.inc({ agent, channel, outcome }),
    links: (agentId, pageId, person, incarnation) => deps.links?.get(agentId)?.links(pageId, person, incarnation) ?? null, onQuarantined: quarantined,
    zone: (agentId, person) => {
      const config = configs.get(agentId);
      return config === undefined ? 'UTC' : personZone(config, person);
    } });
  const engine = createPageEngine({ store, clock, configs, onCommitted: () => notifier.wake(), metrics: oncallMetrics, sender: notifier,
    log: (agentId, event, fields, level = 'info') => byId.get(agentId)?.log.write(level, event, fields), onQuarantined: quarantined,
    shadow: (agentId) => byId.get(agentId)?.shadow === true,
    followsPageState: (agentId, channelId) => byId.get(agentId)?.channels.find((c) => c.id === channelId)?.followsPageState === true,
    rings: (agentId, channelId) => byId.get(agentId)?.channels.find((c) => c.id === channelId)?.rings === true,
    hasChannel: (agentId, channelId) => byId.get(agentId)?.channels.some((c) => c.id === channelId) === true });
  const loop = createPageLoop({ store, clock, owner: deps.owner, engine, configs, onError, onQuarantined: (q) => {
    byId.get(q.agentId ?? '')?.log.write('error', 'page.quarantined', { pageId: q.id, reason: q.reason });
    quarantined(q);
  },
    timerLag: (s) => oncallMetrics.timerLag(s), heartbeatAge: (agent, hb, s) => oncallMetrics.heartbeatAge(agent, hb, s),
    heartbeatsSeen: (rows) => { seen = rows; },
    openPages: (counts) => {
      openCounts = counts;
      for (const agent of configs.keys()) {
        for (const state of ['triggered', 'acknowledged'] as const) {
          oncallMetrics.pagesOpen.set({ agent, state }, counts.find((c) => c.agentId === agent && c.state === state)?.count ?? 0);
        }
      }
    } });
  for (const agent of deps.agents) if (configs.has(agent.id)) agent.pages = engine;

  return {
    engine,
    onDelivery(agentId, sourceId, payloadText) {
      const heartbeats = configs.get(agentId)?.heartbeats ?? [];
      if (!heartbeats.some((h) => h.source === sourceId)) return;
      let payload: unknown;
      try {
        payload = JSON.parse(payloadText);
      } catch {
        return;
      }
      const ids = heartbeatsMatching(heartbeats, sourceId, payload).map((h) => h.id);
      if (ids.length > 0) store.oncall.touchHeartbeats(agentId, ids, clock.now()).catch(onError);
    },
    status(agentId) {
      const config = configs.get(agentId);
      if (config === undefined) return null;
      const open = openCounts.filter((c) => c.agentId === agentId).reduce((n, c) => n + c.count, 0);
      return oncallStatus(config, open, new Map(seen.filter((h) => h.agentId === agentId).map((h) => [h.heartbeatId, h.lastSeenMs])), clock.now());
    },
    replaceAgent(agent) {
      byId.set(agent.id, agent);
      if (configs.has(agent.id)) agent.pages = engine;
      return notifier.settled();
    },
    problems: () => [loop.problem(), notifier.problem()].filter((p): p is string => p !== null),
    start: () => {
      loop.start();
      notifier.start();
    },
    async close() {
      await loop.close();
      await notifier.close();
    },
  };
}
