/**
 * Waiting for a promise until a signal aborts: the one home of "await this, unless we are told to
 * stop". Unlike a bare race with `rejectOnAbort`, the listener on the signal is removed as soon as the
 * promise settles, so a long-lived signal (the daemon's life) does not collect one per wait.
 */
import { abortReason } from './clock.js';

export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
      (err: unknown) => { signal.removeEventListener('abort', onAbort); reject(err instanceof Error ? err : new Error(String(err))); },
    );
  });
}
