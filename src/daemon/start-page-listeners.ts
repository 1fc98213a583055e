/**
 * The listeners of agents that page (contract §18, §21): one-time ack links (§18.6) for an agent with an
 * oncall.yaml and an ack source, Slack button clicks (§18.2) for one with a slack source, Twilio's
 * callbacks (§21.4) for each twilio source, and — no port — the leader's poll of the Telegram bots'
 * button presses (§21.5). They stop before the page engine does.
 */
import type { LoadedAgent, TwilioChannelConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { PageEngine } from '../runtime/oncall/page-engine.js';
import type { Store } from '../store/store.js';
import type { AckLinkServer } from './ack-link-server.js';
import { createAckLinkServer } from './ack-link-server.js';
import { createSlackActionsServer } from './slack-actions-server.js';
import { startTelegramActions, telegramBots } from './telegram-actions.js';
import { createTwilioSourceServer } from './twilio-source-server.js';
import type { AgentLogs } from './start-agent-logs.js';
import { closeEach } from './close-order.js';
import type { ListenerRegistry } from './listener-registry.js';
import { listenerAuthority } from '../config/source-url.js';

export async function startPageListeners(deps: { agents: readonly LoadedAgent[]; configs: ReadonlyMap<string, OncallConfig>;
  engine: PageEngine; store: Store; clock: Clock; logs: AgentLogs; report: (line: string) => void;
  /** Filled with each agent's ack-link server: the page engine puts its links into messages. */
  ackServers: Map<string, AckLinkServer>;
  /** Where each listener is registered for /status (`svc ps`). */
  listeners: ListenerRegistry;
  /** Whether this replica holds the leader lease: only the leader polls Telegram. */
  leader: () => boolean;
  /** The agents as loaded now (a config reload changes their channels live): the Telegram bots polled. */
  currentAgents?: () => readonly LoadedAgent[] }): Promise<{ close(): Promise<void> }> {
  const { engine, store, clock, report } = deps;
  const started: Array<{ close(): Promise<void> | void }> = [];
  const close = (): Promise<void> => closeEach([...started].reverse());
  try {
    for (const loaded of deps.agents) {
      if (loaded.ackSource === undefined || !deps.configs.has(loaded.agent.id)) continue;
      const server = createAckLinkServer({ agentId: loaded.agent.id, source: loaded.ackSource, engine, store, clock,
        log: deps.logs.get(loaded.agent.id), report });
      await server.start();
      deps.ackServers.set(loaded.agent.id, server);
      started.push(server);
      const { id, bind } = loaded.ackSource;
      deps.listeners.add({ kind: 'ack', agent: loaded.agent.id, source: id, bind, port: () => server.port(), url: () => server.publicUrl() });
    }
    for (const loaded of deps.agents) {
      const agentId = loaded.agent.id;
      if (loaded.slackSource === undefined || !deps.configs.has(agentId)) continue;
      // The people are read per click: a config reload's change of oncall.yaml applies to the next one.
      const server = createSlackActionsServer({ agentId, source: loaded.slackSource,
        slackChannelIds: loaded.channels.filter((c) => c.type === 'slack').map((c) => c.id),
        people: () => deps.configs.get(agentId)?.people ?? [],
        engine, store, clock, log: deps.logs.get(agentId), report });
      await server.start();
      started.push(server);
      const { id, bind } = loaded.slackSource;
      deps.listeners.add({ kind: 'slack', agent: agentId, source: id, bind, port: () => server.port(),
        url: () => `http://${listenerAuthority(bind, server.port(), false)}/webhooks/${id}` });
    }
    const agentsNow = deps.currentAgents ?? ((): readonly LoadedAgent[] => deps.agents);
    for (const loaded of deps.agents) {
      const agentId = loaded.agent.id;
      if (!deps.configs.has(agentId)) continue;
      for (const source of loaded.twilioSources ?? []) {
        const first = twilioChannelOf(loaded, source.channel);
        if (first === undefined) continue; // the loader refuses a source naming no twilio channel
        // Read per request: a reload that rotates the auth token changes the key of the signatures at once.
        const channel = (): TwilioChannelConfig => twilioChannelOf(agentsNow().find((a) => a.agent.id === agentId), source.channel) ?? first;
        const server = createTwilioSourceServer({ agentId, source, channel, people: () => deps.configs.get(agentId)?.people ?? [],
          engine, store, clock, log: deps.logs.get(agentId), report });
        await server.start();
        started.push(server);
        deps.listeners.add({ kind: 'twilio', agent: agentId, source: source.id, bind: source.bind, port: () => server.port(),
          url: () => source.publicUrl });
      }
    }
    started.push(startTelegramActions({ bots: () => telegramBots(agentsNow(), (id) => deps.configs.has(id)), leader: deps.leader,
      people: (agentId) => deps.configs.get(agentId)?.people ?? [], engine, store, clock, report,
      log: (agentId, level, event, fields) => deps.logs.get(agentId).write(level, event, fields) }));
  } catch (err) {
    await close();
    throw err;
  }
  return { close };
}

function twilioChannelOf(agent: LoadedAgent | undefined, channelId: string): TwilioChannelConfig | undefined {
  const channel = agent?.channels.find((c) => c.id === channelId);
  return channel?.type === 'twilio' ? channel : undefined;
}
