/**
 * The tailer registry: ONE shared reader per log file, fanned out to any number of subscribers
 * (contract §6: the cost of a new client is its socket and its buffer). A file's reader, watcher,
 * poll timer and descriptor exist while it has subscribers and are released when the last leaves.
 */
import { resolve } from 'node:path';
import { DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
import { createTailFile } from './tail-file.js';
import type { TailFile } from './tail-file.js';
import type { SubscribeOptions, Subscription, TailListener } from './tail-types.js';
import type { Clock } from '../core/clock.js';

export interface TailerRegistryDeps {
  /** Safety poll (`fstat`/`lstat`) next to `fs.watch`, in ms; default 1000. */
  pollMs?: number;
  clock: Clock;
  /** Lines longer than this many bytes are skipped and delivered as `tooLong`; default 1 MiB. */
  maxLineBytes?: number;
  /**
   * Pause after a read that delivered lines before the next read of the same file, by number of
   * subscribers; default `fanOutLingerMs`. Nothing is dropped: the read after the pause takes
   * everything written meanwhile, and each subscriber gets it in one write.
   */
  lingerMs?: (subscribers: number) => number;
  /** A subscriber's listener threw (a bug): it is unsubscribed and the error lands here. */
  onListenerError?: (err: unknown) => void;
}

export interface TailerRegistry {
  /**
   * Follows the file at `path` (which may not exist yet). Without `fromStart`/`afterOffset` the
   * subscription starts at the file's current line end. `listener.start` is called first, then
   * lines, notices and errors, in file order.
   */
  subscribe(path: string, listener: TailListener, opts: SubscribeOptions): Subscription;
  /**
   * Makes the reader of `path` read what was appended, and resolves once a read that started after
   * this call is over: every complete line the file held at the call has then been handed to the live
   * subscribers, and what stayed undelivered (a partial line) was seen and held. At once when nobody
   * follows `path`. For tests and callers that need "the reader has caught up with the file".
   */
  nextCheck(path: string): Promise<void>;
  /** Stops every reader; their subscribers get nothing more. */
  close(): void;
  stats(): { files: number; subscribers: number };
}

/**
 * The default linger: `n / 50` ms (whole ms) capped at 20 ms. Under 50 subscribers, no pause; 100,
 * 2 ms; 1,000 and more, 20 ms. A hot file then costs at most 50 writes per second per client
 * instead of one write per client per append: with 1,000 clients, 50,000 socket writes a second,
 * which are nearly all of the cost (bench/logs-fanout.ts: ≈10 µs each, most of it the kernel's
 * loopback send). The cap is the latency bought with it: a line waits at most 20 ms for its read,
 * which leaves room in the 50 ms p99 for the fan-out to 1,000 sockets and the clients' reads
 * (docs/performance.md; it was 50 ms, which alone was the whole budget).
 */
export function fanOutLingerMs(subscribers: number): number {
  return Math.min(20, Math.floor(subscribers / 50));
}

export function createTailerRegistry(deps: TailerRegistryDeps): TailerRegistry {
  const files = new Map<string, TailFile>();
  const fileDeps = {
    clock: deps.clock,
    pollMs: deps.pollMs ?? 1000,
    maxLineBytes: deps.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    lingerMs: deps.lingerMs ?? fanOutLingerMs,
    onListenerError: deps.onListenerError,
  };
  let closed = false;
  return {
    subscribe(path, listener, opts) {
      if (closed) throw new Error('tailer registry is closed');
      const key = resolve(path);
      let file = files.get(key);
      if (file === undefined) {
        const created = createTailFile(key, fileDeps, () => { if (files.get(key) === created) files.delete(key); });
        file = created;
        files.set(key, created);
      }
      return file.subscribe(listener, opts);
    },
    nextCheck(path) {
      return files.get(resolve(path))?.nextCheck() ?? Promise.resolve();
    },
    close() {
      closed = true;
      for (const f of files.values()) f.close();
      files.clear();
    },
    stats() {
      let subscribers = 0;
      for (const f of files.values()) subscribers += f.subscriberCount();
      return { files: files.size, subscribers };
    },
  };
}
