/**
 * The receipt duty (contract §21.3), run by the leader only: for every receipt kept with a page
 * (store/receipt-store.ts), while the page is triggered it asks the vendor about it — on the schedule
 * of oncall/receipt-schedule.ts, at most `maxInFlight` requests at once (Pushover asks for no more
 * than two concurrent connections) — and
 *
 *   - `acknowledged` there acknowledges the page as the person the message was for, through the page
 *     engine like `svc ack` (`via: pushover`, the row's `device` the vendor's `acknowledged_by_device`);
 *   - a page acknowledged or resolved anywhere else has its receipt cancelled, once, so the phone
 *     stops ringing; a cancel that fails is tried again every CANCEL_RETRY_MS until the receipt expires;
 *   - an expired receipt, or one the vendor no longer knows, is no longer watched.
 *
 * Each receipt is closed in the store once whatever became of it, and the agent's log says what
 * (`receipt.acknowledged`, `receipt.cancelled`, `receipt.closed`). The page states come from the store
 * every `refreshMs`, so an ack on another replica is seen too; an ack taken here refreshes at once.
 * The vendor's credentials stay in its channel: the duty asks through `Channel.receipts`.
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import { every } from '../../core/every.js';
import type { LogFields } from '../../core/log.js';
import { createReceiptSchedule } from '../../oncall/receipt-schedule.js';
import type { ReceiptStore, WatchedReceipt } from '../../store/receipt-store.js';
import type { Channel, ReceiptApi, ReceiptCancel, ReceiptStatus } from '../channels/channel.js';
import type { PageEngine } from './page-engine.js';

/** A cancel that failed is asked again after this long (unless the vendor says when). */
export const CANCEL_RETRY_MS = 30_000;
/** Past its expiry a receipt may still be asked once (an answer just before it); after this it is let go unasked. */
export const EXPIRED_GRACE_MS = 60_000;
/** Most receipts read per refresh: a bound on one read, far above what Pushover's quotas allow to be open. */
const LIST_LIMIT = 20_000;

export type ReceiptEnd = 'acknowledged' | 'cancelled' | 'expired' | 'gone';

export interface ReceiptDutyDeps {
  receipts: ReceiptStore;
  clock: Clock;
  engine: Pick<PageEngine, 'act'>;
  /** The channel that sent a receipt's message, as its agent has it now (a reload may have replaced it). */
  channel(agentId: string, channelId: string): Channel | undefined;
  log(agentId: string, level: 'info' | 'warn' | 'error', event: string, fields: LogFields): void;
  metrics?: {
    watched(count: number): void;
    request(agent: string, channel: string, kind: 'poll' | 'cancel', outcome: 'ok' | 'failed'): void;
  };
  onError(err: unknown): void;
  /** How often the receipts and their pages' states are read from the store (default 5 s). */
  refreshMs?: number;
  /** Requests to the vendor at once (default 2: Pushover's "no more than 2 concurrent HTTP requests"). */
  maxInFlight?: number;
}

export interface ReceiptDuty {
  /** Reads the store now (tests; an ack taken here). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

interface Cancel { receipt: WatchedReceipt; notBeforeMs: number }
/** The answer for a channel no longer configured to answer about receipts: a failed ask. */
type NotConfigured = { kind: 'failed'; error: string; retryAfterMs?: undefined };

export function startReceiptDuty(deps: ReceiptDutyDeps): ReceiptDuty {
  const { clock } = deps;
  const maxInFlight = deps.maxInFlight ?? 2;
  const schedule = createReceiptSchedule();
  const watched = new Map<string, WatchedReceipt>();
  const cancels = new Map<string, Cancel>();
  const busy = new Set<string>();
  /** Closed here: a refresh that read the store before the close must not take them up again. */
  const closed = new Set<string>();
  const running = new Set<Promise<void>>();
  const stop = new AbortController();
  let timer: TimerHandle | null = null;
  /** Channels whose last request failed: their next failure is not logged again, their next success is. */
  const failing = new Set<string>();

  const apiOf = (r: WatchedReceipt): ReceiptApi | undefined => deps.channel(r.agentId, r.channelId)?.receipts;
  const report = (): void => deps.metrics?.watched(watched.size + cancels.size);

  /** Stops watching a receipt: in the store (once, whoever asks) and here. */
  async function close(r: WatchedReceipt, end: ReceiptEnd, fields: LogFields = {}): Promise<void> {
    closed.add(r.receipt);
    watched.delete(r.receipt);
    cancels.delete(r.receipt);
    schedule.sync(watched.keys(), clock.now());
    report();
    if (!(await deps.receipts.closeReceipt(r.receipt))) return;
    const event = end === 'acknowledged' ? 'receipt.acknowledged' : end === 'cancelled' ? 'receipt.cancelled' : 'receipt.closed';
    deps.log(r.agentId, 'info', event, { pageId: r.pageId, channelId: r.channelId, person: r.person, receipt: r.receipt,
      ...(end === 'expired' || end === 'gone' ? { reason: end } : {}), ...fields });
  }

  function outcome(r: WatchedReceipt, kind: 'poll' | 'cancel', answer: ReceiptStatus | ReceiptCancel): void {
    const key = `${r.agentId}/${r.channelId}`;
    const failed = answer.kind === 'failed';
    deps.metrics?.request(r.agentId, r.channelId, kind, failed ? 'failed' : 'ok');
    if (failed && !failing.has(key)) {
      failing.add(key);
      deps.log(r.agentId, 'warn', 'receipt.request-failed', { channelId: r.channelId, request: kind, error: answer.error });
    } else if (!failed && failing.delete(key)) {
      deps.log(r.agentId, 'info', 'receipt.requests-answered', { channelId: r.channelId });
    }
    if (answer.kind === 'failed' && answer.retryAfterMs !== undefined) schedule.pause(clock.now() + answer.retryAfterMs);
  }

  /**
   * Asks the receipt's channel (a poll or a cancel) and records the answer; null when the duty closed
   * meanwhile. A channel no longer configured to answer about receipts is a failed ask.
   */
  async function ask<A extends ReceiptStatus | ReceiptCancel>(r: WatchedReceipt, kind: 'poll' | 'cancel',
    call: (api: ReceiptApi) => Promise<A>): Promise<A | NotConfigured | null> {
    const api = apiOf(r);
    const answer = api === undefined
      ? { kind: 'failed' as const, error: `channel ${r.channelId} of agent ${r.agentId} is not configured to answer about receipts` }
      : await call(api);
    if (stop.signal.aborted) return null;
    outcome(r, kind, answer);
    return answer;
  }

  async function poll(r: WatchedReceipt): Promise<void> {
    const startedMs = clock.now();
    try {
      const status = await ask(r, 'poll', (api) => api.poll(r.receipt, stop.signal));
      if (status === null) return;
      if (status.kind === 'acknowledged') {
        // As `svc ack` does; a page acknowledged or resolved meanwhile changes nothing, and the receipt is answered all the same.
        const acted = await deps.engine.act(r.pageId, { kind: 'ack', note: null },
          { actor: `pushover:${r.receipt}`, by: r.person, via: 'pushover', device: status.device });
        await close(r, 'acknowledged', { device: status.device, changed: acted.ok && acted.changed });
        refreshNow(); // the page's other receipts are cancelled now, not at the next refresh

      } else if (status.kind === 'expired' || status.kind === 'gone') {
        await close(r, status.kind, status.kind === 'gone' ? { error: status.error } : {});
      }
    } finally {
      schedule.done(r.receipt, startedMs);
    }
  }

  async function cancel(c: Cancel): Promise<void> {
    const r = c.receipt;
    const answer = await ask(r, 'cancel', (api) => api.cancel(r.receipt, stop.signal));
    if (answer === null) return;
    if (answer.kind === 'failed') {
      c.notBeforeMs = clock.now() + (answer.retryAfterMs ?? CANCEL_RETRY_MS);
      return;
    }
    await close(r, answer.kind === 'cancelled' ? 'cancelled' : 'gone', { pageState: r.pageState, ...(answer.kind === 'gone' ? { error: answer.error } : {}) });
  }

  const start = (receipt: string, work: () => Promise<void>): void => {
    busy.add(receipt);
    const p: Promise<void> = work().catch((err: unknown) => { if (!stop.signal.aborted) deps.onError(err); })
      .finally(() => {
        busy.delete(receipt);
        running.delete(p);
        pump();
      });
    running.add(p);
  };

  /** The cancel to send now, if any (cancels are few: a scan is fine). */
  const dueCancel = (nowMs: number): Cancel | undefined => {
    for (const c of cancels.values()) if (c.notBeforeMs <= nowMs && !busy.has(c.receipt.receipt)) return c;
    return undefined;
  };
  /** When a waiting cancel may go next; Infinity when none waits. */
  const nextCancelAtMs = (): number => {
    let at = Infinity;
    for (const c of cancels.values()) if (!busy.has(c.receipt.receipt)) at = Math.min(at, Math.max(c.notBeforeMs, schedule.slotAtMs()));
    return at;
  };
  let timerAtMs = Infinity;

  /** Starts what is due, within the in-flight bound; then sleeps until the next thing could be. */
  function pump(): void {
    if (stop.signal.aborted) return;
    const nowMs = clock.now();
    while (busy.size < maxInFlight) {
      const due = cancels.size === 0 ? undefined : dueCancel(nowMs);
      if (due !== undefined && schedule.spend(nowMs)) {
        start(due.receipt.receipt, () => cancel(due));
        continue;
      }
      const id = schedule.take(nowMs);
      const r = id === null ? undefined : watched.get(id);
      if (id === null || r === undefined) break;
      start(id, () => poll(r));
    }
    const wakeAt = busy.size >= maxInFlight ? Infinity : Math.min(schedule.wakeAtMs() ?? Infinity, cancels.size === 0 ? Infinity : nextCancelAtMs());
    if (wakeAt === timerAtMs) return; // the timer set already fires then
    if (timer !== null) clock.clearTimer(timer);
    timer = null;
    timerAtMs = wakeAt;
    if (wakeAt !== Infinity) {
      timer = clock.setTimer(() => {
        timer = null;
        timerAtMs = Infinity;
        pump();
      }, Math.max(1, wakeAt - nowMs));
    }
  }

  /** Set when the store changed under a refresh under way (an ack taken here): that refresh reads again. */
  let stale = false;
  let refreshing = false;

  /** Reads the receipts and their pages' states, and decides what each needs now. */
  async function refresh(): Promise<void> {
    refreshing = true;
    try {
      do {
        stale = false;
        await refreshOnce();
      } while (stale && !stop.signal.aborted);
    } finally {
      refreshing = false;
    }
  }

  async function refreshOnce(): Promise<void> {
    const rows = await deps.receipts.listReceipts(LIST_LIMIT);
    if (stop.signal.aborted) return;
    const nowMs = clock.now();
    const listed = new Set(rows.map((r) => r.receipt));
    for (const id of [...closed]) if (!listed.has(id)) closed.delete(id);
    for (const id of [...watched.keys()]) if (!listed.has(id) && !busy.has(id)) watched.delete(id);
    for (const id of [...cancels.keys()]) if (!listed.has(id) && !busy.has(id)) cancels.delete(id);
    const ends: Array<Promise<void>> = [];
    for (const r of rows) {
      if (closed.has(r.receipt)) continue; // read before its close
      if (r.pageState === 'triggered') {
        if (busy.has(r.receipt)) continue; // its answer decides
        if (nowMs >= r.expiresAtMs + EXPIRED_GRACE_MS) ends.push(close(r, 'expired'));
        else watched.set(r.receipt, r);
        continue;
      }
      // Acknowledged or resolved elsewhere (or the page is gone): what still rings is cancelled — once
      // an ask under way has answered — and what no longer rings is let go.
      watched.delete(r.receipt);
      if (nowMs >= r.expiresAtMs) {
        if (!busy.has(r.receipt)) ends.push(close(r, 'expired', { pageState: r.pageState }));
      } else if (!cancels.has(r.receipt)) {
        cancels.set(r.receipt, { receipt: r, notBeforeMs: nowMs });
      }
    }
    schedule.sync(watched.keys(), nowMs);
    report();
    await Promise.all(ends);
    pump();
  }

  /** Reads the store again now, or as soon as the refresh under way ends. */
  const refreshNow = (): void => {
    if (refreshing) stale = true;
    else void refresher.runNow();
  };

  const refresher = every({ clock, intervalMs: deps.refreshMs ?? 5_000, firstDelayMs: 0, run: refresh, onError: (err) => deps.onError(err) });

  return {
    refresh: () => refresher.runNow(),
    async close() {
      stop.abort();
      if (timer !== null) clock.clearTimer(timer);
      await refresher.close();
      await Promise.allSettled([...running]);
      watched.clear();
      cancels.clear();
      report();
    },
  };
}
