/**
 * How many page reads the views serve at once (contract §11.4: reads never hold up ingest). A page
 * can carry 4 MiB: the gate bounds the memory that pages in flight hold (reader thread to socket) and
 * the event-loop time spent handing them over, so however many clients ask at once, a webhook's 202
 * waits behind at most `limit` of them. The others wait their turn, in arrival order, holding nothing.
 */
/** Page reads served at once by default: enough for a fleet walking pages, bounded in memory (4 × 4 MiB). */
export const DEFAULT_READS_AT_ONCE = 4;

export interface ReadGate {
  /** Resolves with the release once it is this caller's turn; rejects if `signal` aborts first. */
  enter(signal: AbortSignal): Promise<() => void>;
  /** Reads being served, and waiting. */
  stats(): { active: number; waiting: number };
}

export function createReadGate(limit: number): ReadGate {
  let active = 0;
  const queue: Array<{ go: () => void }> = [];
  const leave = (): void => {
    active -= 1;
    const next = queue.shift();
    if (next !== undefined) next.go();
  };
  const release = (): (() => void) => {
    let done = false;
    return () => { if (!done) { done = true; leave(); } };
  };
  return {
    enter(signal) {
      if (signal.aborted) return Promise.reject(new Error('aborted'));
      if (active < limit) {
        active += 1;
        return Promise.resolve(release());
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          go: () => {
            signal.removeEventListener('abort', onAbort);
            active += 1;
            resolve(release());
          },
        };
        const onAbort = (): void => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(new Error('aborted'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    },
    stats: () => ({ active, waiting: queue.length }),
  };
}
