/**
 * Telegram button presses (contract §21.5): no inbound port — the replica holding the leader lease
 * long-polls each bot's `getUpdates` (`timeout` 50 s, `allowed_updates` `["callback_query"]`, at most
 * 100 updates a call) from the offset the store keeps (`telegram:<bot id>`), and saves the next offset
 * after each batch, so a restart or a new leader goes on from there. A press of `svc:<action>:<page>`
 * by a Telegram user who is a person's contact on one of that page's agent's channels of this bot acts
 * through the page engine like `svc ack` (`via: telegram`, actor `telegram:<user id>`); anyone else is
 * refused and audited (`page.ack-refused`). Every press is answered with `answerCallbackQuery`, which
 * stops the button's spinner and shows the outcome.
 *
 * Bounded: each bot has its own loop, so a bot whose API hangs or fails delays only its own presses; a
 * call has a deadline (the long poll's 50 s plus LONG_POLL_SLACK_MS); a batch is at most 100 updates;
 * failures back off (doubling up to MAX_BACKOFF_MS, or Telegram's `retry_after`), and an answer that
 * comes back at once with nothing in it is not asked again for a second. A batch read by a replica
 * that lost the lease meanwhile may be read again by the next leader: acting twice changes nothing.
 */
import type { LoadedAgent, TelegramChannelConfig } from '../config/schema.js';
import { telegramBotId } from '../config/telegram-channel.js';
import type { Clock } from '../core/clock.js';
import type { Every } from '../core/every.js';
import { every } from '../core/every.js';
import { errorText } from '../core/errors.js';
import type { LogFields } from '../core/log.js';
import type { Person } from '../oncall/oncall-config.js';
import type { TelegramApi } from '../runtime/channels/telegram-api.js';
import { telegramApi } from '../runtime/channels/telegram-api.js';
import type { TelegramAction } from '../runtime/channels/telegram-keyboard.js';
import { parseCallbackData } from '../runtime/channels/telegram-keyboard.js';
import type { PageAction, PageEngine } from '../runtime/oncall/page-engine.js';
import type { Store } from '../store/store.js';

/** `getUpdates` `timeout` (contract §21.5): Telegram holds the request this long when nothing is new. */
export const LONG_POLL_S = 50;
/** The poll's deadline past Telegram's own: a server that holds it longer is hanging. */
const LONG_POLL_SLACK_MS = 15_000;
const ANSWER_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 60_000;
/** An empty answer faster than this is not a long poll: the next one waits this long. */
const MIN_EMPTY_POLL_MS = 1_000;

/** One bot and the agents' channels that speak through it. */
export interface TelegramBot {
  /** The store's name for its update feed: `telegram:<bot id>`. */
  feed: string;
  token: string;
  apiUrl: string;
  channels: ReadonlyArray<{ agentId: string; channelId: string }>;
}

/** The bots of the agents that page (an oncall.yaml), one per token and API URL. */
export function telegramBots(agents: readonly LoadedAgent[], paging: (agentId: string) => boolean): TelegramBot[] {
  const bots = new Map<string, TelegramBot & { channels: Array<{ agentId: string; channelId: string }> }>();
  for (const a of agents) {
    if (!paging(a.agent.id)) continue;
    for (const c of a.channels.filter((ch): ch is TelegramChannelConfig => ch.type === 'telegram')) {
      const key = `${c.apiUrl}\n${c.token}`;
      const bot = bots.get(key) ?? { feed: `telegram:${telegramBotId(c.token)}`, token: c.token, apiUrl: c.apiUrl, channels: [] };
      bot.channels.push({ agentId: a.agent.id, channelId: c.id });
      bots.set(key, bot);
    }
  }
  return [...bots.values()];
}

export interface TelegramActionsDeps {
  /** Read at every look: a config reload's bots are polled from then on. */
  bots: () => readonly TelegramBot[];
  leader: () => boolean;
  people: (agentId: string) => readonly Person[];
  engine: PageEngine;
  store: Store;
  clock: Clock;
  /** A line for an agent's log. */
  log: (agentId: string, level: 'info' | 'warn', event: string, fields: LogFields) => void;
  report: (line: string) => void;
  /** How often a replica that does not lead looks again, and the set of bots is looked at (default 5 s). */
  idleMs?: number;
}

export interface TelegramActions {
  close(): Promise<void>;
}

const ACTIONS: Readonly<Record<TelegramAction, PageAction>> = {
  ack: { kind: 'ack', note: null }, resolve: { kind: 'resolve', note: null }, escalate: { kind: 'escalate', toStep: null },
};
const DONE: Readonly<Record<TelegramAction, string>> = { ack: 'Acknowledged.', resolve: 'Resolved.', escalate: 'Escalated.' };

interface CallbackQuery { id: string; userId: string; data: unknown }

/** The callback queries of a getUpdates result and the offset after them; null when it is not an array of updates. */
export function readUpdates(result: unknown): { queries: CallbackQuery[]; next: number | null } | null {
  if (!Array.isArray(result)) return null;
  let next: number | null = null;
  const queries: CallbackQuery[] = [];
  for (const u of result as unknown[]) {
    if (typeof u !== 'object' || u === null) continue;
    const { update_id: updateId, callback_query: cq } = u as { update_id?: unknown; callback_query?: unknown };
    if (typeof updateId !== 'number' || !Number.isSafeInteger(updateId)) continue;
    next = Math.max(next ?? 0, updateId + 1);
    if (typeof cq !== 'object' || cq === null) continue;
    const { id, from, data } = cq as { id?: unknown; from?: { id?: unknown }; data?: unknown };
    if (typeof id !== 'string' || id.length > 256 || typeof from?.id !== 'number' || !Number.isSafeInteger(from.id)) continue;
    queries.push({ id, userId: String(from.id), data });
  }
  return { queries, next };
}

export function startTelegramActions(deps: TelegramActionsDeps): TelegramActions {
  const { clock, store } = deps;
  const idleMs = deps.idleMs ?? 5_000;
  const pollers = new Map<string, { bot: TelegramBot; loop: Every | null }>();

  async function press(bot: TelegramBot, api: TelegramApi, q: CallbackQuery, signal: AbortSignal): Promise<void> {
    const parsed = parseCallbackData(q.data);
    // Telegram shows at most 200 characters of an answer (https://core.telegram.org/bots/api#answercallbackquery).
    const answer = (text?: string): Promise<unknown> => api.call('answerCallbackQuery',
      { callback_query_id: q.id, ...(text === undefined ? {} : { text: text.slice(0, 200) }) }, signal, ANSWER_TIMEOUT_MS);
    if (parsed === null) {
      await answer();
      return;
    }
    const actor = `telegram:${q.userId}`;
    const refusal = (reason: string, pageId: string, agentId: string | null) => ({ kind: 'page.ack-refused', actor, agentId,
      data: { pageId, via: 'telegram', user: q.userId, action: parsed.action, reason } });
    const page = await store.oncall.getPage(parsed.pageId);
    const channels = page === null ? [] : bot.channels.filter((c) => c.agentId === page.agentId).map((c) => c.channelId);
    if (page === null || channels.length === 0) {
      await store.appendAudit(refusal('unknown-page', parsed.pageId, null), clock.now());
      await answer(`There is no page ${parsed.pageId}.`);
      return;
    }
    const person = deps.people(page.agentId).find((p) => channels.some((ch) => p.contacts[ch] === q.userId));
    if (person === undefined) {
      await store.oncall.writeNotifications([], [refusal('unknown-user', page.id, page.agentId)], clock.now());
      deps.log(page.agentId, 'warn', 'telegram-action.refused', { pageId: page.id, user: q.userId, action: parsed.action, reason: 'unknown-user' });
      await answer('You are not on call for svc, so this button does nothing for you.');
      return;
    }
    const outcome = await deps.engine.act(page.id, ACTIONS[parsed.action], { actor, by: person.id, via: 'telegram' });
    deps.log(page.agentId, 'info', 'telegram-action', { pageId: page.id, person: person.id, action: parsed.action,
      changed: outcome.ok && outcome.changed });
    await answer(!outcome.ok ? `Nothing changed: ${outcome.reason}.` : outcome.changed ? DONE[parsed.action] : 'Nothing changed: it already was.');
  }

  /** The loop of one bot; its channels are read from `entry` at each press (a reload may change them). */
  function startPoller(entry: { bot: TelegramBot }): Every {
    const { bot } = entry;
    const api = telegramApi(bot, clock);
    let failures = 0;
    let pauseMs = 0;
    const botName = bot.feed.replace('telegram:', 'telegram bot ');
    const fail = (error: string, retryAfterMs?: number): void => {
      failures += 1;
      pauseMs = Math.min(MAX_BACKOFF_MS, Math.max(1_000 * 2 ** Math.min(failures - 1, 10), retryAfterMs ?? 0));
      if (failures === 1) deps.report(`${botName}: getUpdates failed (${error}); trying again with back-off, up to every ${MAX_BACKOFF_MS / 1000} s`);
    };
    return every({
      clock, firstDelayMs: 0, intervalMs: () => pauseMs,
      onError: (err) => fail(errorText(err)),
      run: async (signal) => {
        if (!deps.leader()) {
          pauseMs = idleMs;
          return;
        }
        const offset = await store.oncall.pollOffset(bot.feed);
        const started = clock.monotonic();
        const got = await api.call('getUpdates', { ...(offset === null ? {} : { offset }), limit: 100, timeout: LONG_POLL_S,
          allowed_updates: ['callback_query'] }, signal, LONG_POLL_S * 1000 + LONG_POLL_SLACK_MS);
        if (signal.aborted) return;
        if (!got.ok) return fail(got.error, got.retryAfterMs);
        const updates = readUpdates(got.result);
        if (updates === null) return fail('telegram getUpdates: the result is not a list of updates');
        // Answers are sent side by side, each with its own deadline: a slow one holds no other press.
        const pressed = updates.queries.map((q) => press(entry.bot, api, q, signal).catch((err: unknown) =>
          deps.report(`${botName}: a button press was not handled: ${errorText(err)}`)));
        await Promise.all(pressed);
        if (updates.next !== null) await store.oncall.savePollOffset(bot.feed, updates.next, clock.now());
        if (failures > 0) deps.report(`${botName}: getUpdates works again`);
        failures = 0;
        pauseMs = updates.queries.length === 0 && clock.monotonic() - started < MIN_EMPTY_POLL_MS ? MIN_EMPTY_POLL_MS : 0;
      },
    });
  }

  const keyOf = (bot: TelegramBot): string => `${bot.apiUrl}\n${bot.token}`;
  /** Starts a loop for each new bot and stops those gone (a reload); a bot whose channels changed keeps its loop with the new ones. */
  const reconcile = async (): Promise<void> => {
    const wanted = new Map(deps.bots().map((b) => [keyOf(b), b]));
    const gone = [...pollers].filter(([key]) => !wanted.has(key));
    for (const [key, bot] of wanted) {
      const running = pollers.get(key);
      if (running !== undefined) {
        running.bot = bot;
        continue;
      }
      const entry: { bot: TelegramBot; loop: Every | null } = { bot, loop: null };
      entry.loop = startPoller(entry);
      pollers.set(key, entry);
    }
    for (const [key] of gone) pollers.delete(key);
    await Promise.all(gone.map(([, p]) => p.loop?.close() ?? Promise.resolve()));
  };
  const watching = every({ clock, intervalMs: idleMs, firstDelayMs: 0, run: reconcile, onError: (err) => deps.report(`telegram: ${errorText(err)}`) });

  return {
    async close() {
      await watching.close();
      await Promise.all([...pollers.values()].map((p) => p.loop?.close() ?? Promise.resolve()));
      pollers.clear();
    },
  };
}
