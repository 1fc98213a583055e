/**
 * When the leader asks a vendor about each receipt it watches (contract §21.3), pure: time comes in
 * as an argument. Two bounds hold per receipt — never twice within 5 s (Pushover: "no faster than once
 * every 5 seconds"), and at most every 30 s however many are watched — and the asks are spread
 * evenly instead of bunched: with n receipts watched, each is asked every
 *
 *   interval(n) = clamp(n / TARGET_PER_SECOND, 5 s, 29 s)
 *
 * and consecutive asks start interval(n) / n apart, the slots kept on a nominal clock so a tick that
 * fires a little late catches up instead of stretching every interval. Up to 50 receipts are asked
 * every 5 s; from 290 on, each every 29 s — a second under the bound, so a late tick never takes a
 * receipt past it (1,000 receipts: 34 asks a second). Receipts wait in a heap by due time: an ask
 * costs O(log n), not a scan of every receipt. A vendor that says "slow down" (429 with
 * Retry-After) pauses every ask until then.
 */

export const RECEIPT_POLL = {
  /** Never ask about one receipt more often (Pushover's receipts API). */
  minIntervalMs: 5_000,
  /** Ask about each receipt at least every 30 s, however many there are (contract §21.3): aimed a second under. */
  maxIntervalMs: 29_000,
  /** The ask rate aimed at while the bounds allow it: few receipts are asked every 5 s, many are spread. */
  targetPerSecond: 10,
} as const;

/** How often each of `watched` receipts is asked about. */
export function pollIntervalMs(watched: number): number {
  const spread = (watched * 1000) / RECEIPT_POLL.targetPerSecond;
  return Math.min(RECEIPT_POLL.maxIntervalMs, Math.max(RECEIPT_POLL.minIntervalMs, spread));
}

export interface ReceiptSchedule {
  /**
   * The receipts watched now (a refresh from the store): a new one is first asked about after the
   * 5 s floor (another leader may have asked just before this one took over); one no longer listed is
   * dropped; the others keep their times.
   */
  sync(receipts: Iterable<string>, nowMs: number): void;
  /** The receipt to ask about now, or null (none due, or the next slot not yet come). It is then in flight until `done`. */
  take(nowMs: number): string | null;
  /** A slot used for something else (a cancel): the next ask waits one spacing more. */
  spend(nowMs: number): boolean;
  /** The ask about `receipt` that started at `startedMs` has ended; the receipt is due again one interval after that start. */
  done(receipt: string, startedMs: number): void;
  /** Asks wait until `untilMs` (a vendor's Retry-After). */
  pause(untilMs: number): void;
  /** When something may be due next; null when nothing is watched (in-flight receipts aside). */
  wakeAtMs(): number | null;
  /** When the next slot comes (for work other than asks: a cancel). */
  slotAtMs(): number;
  /** How many receipts are watched. */
  size(): number;
}

/** A binary min-heap of (time, id) entries; stale entries (the id's time has moved on) are skipped by the caller. */
class DueHeap {
  private readonly at: number[] = [];
  private readonly ids: string[] = [];

  push(atMs: number, id: string): void {
    let i = this.at.length;
    this.at.push(atMs);
    this.ids.push(id);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if ((this.at[up] as number) <= atMs) break;
      this.swap(i, up);
      i = up;
    }
  }

  peek(): { atMs: number; id: string } | null {
    return this.at.length === 0 ? null : { atMs: this.at[0] as number, id: this.ids[0] as string };
  }

  pop(): void {
    const last = this.at.length - 1;
    this.swap(0, last);
    this.at.pop();
    this.ids.pop();
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < this.at.length && (this.at[l] as number) < (this.at[least] as number)) least = l;
      if (r < this.at.length && (this.at[r] as number) < (this.at[least] as number)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  size(): number {
    return this.at.length;
  }

  private swap(a: number, b: number): void {
    [this.at[a], this.at[b]] = [this.at[b] as number, this.at[a] as number];
    [this.ids[a], this.ids[b]] = [this.ids[b] as string, this.ids[a] as string];
  }
}

export function createReceiptSchedule(): ReceiptSchedule {
  /** Each watched receipt's next due time; NaN while an ask about it is under way. */
  const due = new Map<string, number>();
  // Due times in order: an entry whose time is no longer its receipt's is stale and dropped when met.
  const heap = new DueHeap();
  let nextSlotMs = -Infinity;

  const spacing = (): number => pollIntervalMs(due.size) / Math.max(1, due.size);
  const useSlot = (nowMs: number): void => {
    // Nominal slots: a caller late by up to a spacing (a timer firing late) loses nothing; after an
    // idle spell at most two asks start together.
    nextSlotMs = Math.max(nextSlotMs + spacing(), nowMs);
  };
  const setDue = (id: string, atMs: number): void => {
    due.set(id, atMs);
    heap.push(atMs, id);
  };
  /** The earliest live entry, stale ones dropped on the way. */
  const earliest = (): { atMs: number; id: string } | null => {
    for (let top = heap.peek(); top !== null; top = heap.peek()) {
      if (due.get(top.id) === top.atMs) return top;
      heap.pop();
    }
    return null;
  };

  return {
    sync(receipts, nowMs) {
      const listed = new Set(receipts);
      for (const id of [...due.keys()]) if (!listed.has(id)) due.delete(id);
      for (const id of listed) if (!due.has(id)) setDue(id, nowMs + RECEIPT_POLL.minIntervalMs);
    },
    take(nowMs) {
      if (nowMs < nextSlotMs) return null;
      const top = earliest();
      if (top === null || top.atMs > nowMs) return null;
      heap.pop();
      due.set(top.id, NaN);
      useSlot(nowMs);
      return top.id;
    },
    spend(nowMs) {
      if (nowMs < nextSlotMs) return false;
      useSlot(nowMs);
      return true;
    },
    done(receipt, startedMs) {
      if (due.has(receipt)) setDue(receipt, startedMs + pollIntervalMs(due.size));
    },
    pause(untilMs) {
      nextSlotMs = Math.max(nextSlotMs, untilMs);
    },
    wakeAtMs() {
      const top = earliest();
      return top === null ? null : Math.max(top.atMs, nextSlotMs);
    },
    slotAtMs: () => nextSlotMs,
    size: () => due.size,
  };
}
