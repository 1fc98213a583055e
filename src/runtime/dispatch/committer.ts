/**
 * Group commit of completions: outcomes that finish while a commit is under way wait for the next
 * one, and each commit writes all that waited in one store call (one transaction). An event's slot is
 * free as soon as its outcome is queued; its claim stays in `held()` until the commit says how it went.
 */
import type { Clock } from '../../core/clock.js';
import type { ClaimRef, Completion, CompletionResult, Store } from '../../store/store.js';

export interface Committer {
  /** Queues a completion; resolves with its result once committed (rejects when the commit fails). */
  submit(completion: Completion): Promise<CompletionResult>;
  /** Claims queued or being committed. */
  held(): ClaimRef[];
  /** Resolves when nothing is queued or being committed. */
  idle(): Promise<void>;
}

interface Waiting { completion: Completion; resolve(r: CompletionResult): void; reject(e: unknown): void }

export function createCommitter(store: Store, clock: Clock): Committer {
  let queue: Waiting[] = [];
  let inFlight: Waiting[] = [];
  let running: Promise<void> | null = null;

  const run = async (): Promise<void> => {
    await Promise.resolve(); // outcomes queued in the same turn share the first commit
    while (queue.length > 0) {
      inFlight = queue;
      queue = [];
      try {
        const results = await store.completeEvents(inFlight.map((w) => w.completion), clock.now());
        inFlight.forEach((w, i) => w.resolve(results[i] ?? { ok: false, reason: 'claim-lost' }));
      } catch (err) {
        for (const w of inFlight) w.reject(err);
      }
      inFlight = [];
    }
    running = null;
  };

  return {
    submit(completion) {
      return new Promise<CompletionResult>((resolve, reject) => {
        queue.push({ completion, resolve, reject });
        running ??= run();
      });
    },
    held: () => [...inFlight, ...queue].map((w) => w.completion.claim),
    async idle() {
      while (running !== null) await running;
    },
  };
}
