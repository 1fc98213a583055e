/**
 * When the leader asks a vendor about each receipt it watches (contract §21.3), pure: time comes in
 * as an argument. Two bounds hold per receipt — never twice within 5 s (Pushover: "no faster than once
 * every 5 seconds"), and at most every 30 s however many are watched — and the asks are spread
 * evenly instead of bunched: with n receipts watched, each is asked every
 *
 *   interval(n) = clamp(n / TARGET_PER_SECOND, 5 s, 30 s)
 *
 * and consecutive asks start interval(n) / n apart, the slots kept on a nominal clock so a tick that
 * fires a little late catches up instead of stretching every interval. Up to 50 receipts are asked every 5 s; from 300 on,
 * each every 30 s (1,000 receipts: 33 asks a second). A vendor that says "slow down" (429 with
 * Retry-After) pauses every ask until then.
 */

export const RECEIPT_POLL = {
  /** Never ask about one receipt more often (Pushover's receipts API). */
  minIntervalMs: 5_000,
  /** Ask about each receipt at least this often, however many there are (contract §21.3). */
  maxIntervalMs: 30_000,
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

export function createReceiptSchedule(): ReceiptSchedule {
  const due = new Map<string, number>();
  const inFlight = new Set<string>();
  let nextSlotMs = -Infinity;

  const spacing = (): number => pollIntervalMs(due.size) / Math.max(1, due.size);
  const useSlot = (nowMs: number): void => {
    // Nominal slots: a caller late by up to a quarter spacing (a timer firing late) loses nothing;
    // after an idle spell the next slot is at least three quarters of a spacing away, never a burst.
    nextSlotMs = Math.max(nextSlotMs + spacing(), nowMs + spacing() * 0.75);
  };

  return {
    sync(receipts, nowMs) {
      const listed = new Set(receipts);
      for (const id of [...due.keys()]) {
        if (!listed.has(id)) {
          due.delete(id);
          inFlight.delete(id);
        }
      }
      for (const id of listed) if (!due.has(id)) due.set(id, nowMs + RECEIPT_POLL.minIntervalMs);
    },
    take(nowMs) {
      if (nowMs < nextSlotMs) return null;
      let best: string | null = null;
      let bestAt = Infinity;
      for (const [id, at] of due) {
        if (at <= nowMs && at < bestAt && !inFlight.has(id)) {
          best = id;
          bestAt = at;
        }
      }
      if (best === null) return null;
      inFlight.add(best);
      useSlot(nowMs);
      return best;
    },
    spend(nowMs) {
      if (nowMs < nextSlotMs) return false;
      useSlot(nowMs);
      return true;
    },
    done(receipt, startedMs) {
      inFlight.delete(receipt);
      if (due.has(receipt)) due.set(receipt, startedMs + pollIntervalMs(due.size));
    },
    pause(untilMs) {
      nextSlotMs = Math.max(nextSlotMs, untilMs);
    },
    wakeAtMs() {
      let earliest = Infinity;
      for (const [id, at] of due) if (!inFlight.has(id)) earliest = Math.min(earliest, at);
      return earliest === Infinity ? null : Math.max(earliest, nextSlotMs);
    },
    slotAtMs: () => nextSlotMs,
    size: () => due.size,
  };
}
