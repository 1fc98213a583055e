/**
 * The last look's fence on SQLite (contract §17.4): one daemon owns the store file, so the fence
 * between a send and a change of its page is a lock in this process, per page id. A sender holds it
 * shared from its last look until its message is on the wire; a plan that changes a page holds it
 * exclusively until its commit. So an acknowledgement commits either before the look (which then
 * cancels the escalation) or after the message is written — never while one is between the two.
 * First come, first served: a send that asks after a waiting plan waits behind it, so a stream of
 * sends cannot keep an ack out.
 */

interface Waiter { exclusive: boolean; grant(): void }

interface Entry {
  shared: number;
  exclusive: boolean;
  waiting: Waiter[];
}

export interface PageFence {
  /** Resolves once held shared; call the release it gives exactly once. */
  shared(pageId: string): Promise<() => void>;
  /** Runs `fn` holding the page exclusively. */
  exclusive<T>(pageId: string, fn: () => Promise<T>): Promise<T>;
}

export function createPageFence(): PageFence {
  const pages = new Map<string, Entry>();

  const free = (e: Entry, exclusive: boolean): boolean => !e.exclusive && (!exclusive || e.shared === 0);

  const take = (e: Entry, exclusive: boolean): void => {
    if (exclusive) e.exclusive = true;
    else e.shared += 1;
  };

  const drain = (pageId: string, e: Entry): void => {
    while (e.waiting.length > 0 && free(e, (e.waiting[0] as Waiter).exclusive)) {
      const w = e.waiting.shift() as Waiter;
      take(e, w.exclusive);
      w.grant();
    }
    if (e.shared === 0 && !e.exclusive && e.waiting.length === 0) pages.delete(pageId);
  };

  const acquire = (pageId: string, exclusive: boolean): Promise<() => void> => {
    let e = pages.get(pageId);
    if (e === undefined) {
      e = { shared: 0, exclusive: false, waiting: [] };
      pages.set(pageId, e);
    }
    const entry = e;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      if (exclusive) entry.exclusive = false;
      else entry.shared -= 1;
      drain(pageId, entry);
    };
    if (entry.waiting.length === 0 && free(entry, exclusive)) {
      take(entry, exclusive);
      return Promise.resolve(release);
    }
    return new Promise((resolve) => { entry.waiting.push({ exclusive, grant: () => resolve(release) }); });
  };

  return {
    shared: (pageId) => acquire(pageId, false),
    async exclusive(pageId, fn) {
      const release = await acquire(pageId, true);
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
