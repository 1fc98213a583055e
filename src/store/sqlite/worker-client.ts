/**
 * The main thread's side of a store worker (store-worker.ts): requests with ids, replies matched back,
 * errors rebuilt with their class (a bad cursor stays an InvalidCursorError, a refused file a
 * RuntimeError), and a worker that dies fails every call waiting on it instead of leaving it hanging.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../core/worker.js';
import { isRuntimeErrorCode, RuntimeError } from '../../core/errors.js';
import { InvalidCursorError } from '../cursor.js';
import type { SerializedError, StoreReady, StoreReply, StoreWorkerData } from './store-worker.js';

export interface WorkerClient {
  call<T>(op: string, ...args: unknown[]): Promise<T>;
  /** Sends `close`, waits for it, stops the thread. Idempotent. */
  close(): Promise<void>;
}

export function rebuildError(e: SerializedError): Error {
  if (e.name === 'InvalidCursorError') return new InvalidCursorError(e.message);
  if (e.name === 'RuntimeError' && isRuntimeErrorCode(e.code)) return new RuntimeError(e.code, e.message);
  const err = new Error(e.message);
  if (e.code !== undefined) (err as Error & { code: string }).code = e.code;
  return err;
}

export async function startWorkerClient(data: StoreWorkerData): Promise<WorkerClient> {
  const worker: Worker = startModuleWorker(new URL('./store-worker.js', import.meta.url), import.meta.url, data);
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let dead: Error | null = null;
  let closing: Promise<void> | null = null;

  const failAll = (err: Error): void => {
    dead ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };

  await new Promise<void>((resolve, reject) => {
    const onReady = (msg: StoreReady): void => {
      worker.off('error', onError);
      if (msg.ready) resolve();
      else reject(rebuildError(msg.error));
    };
    const onError = (err: Error): void => reject(err);
    worker.once('message', onReady);
    worker.once('error', onError);
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });

  worker.on('message', (reply: StoreReply) => {
    const w = waiting.get(reply.id);
    if (w === undefined) return;
    waiting.delete(reply.id);
    if (reply.ok) w.resolve(reply.value);
    else w.reject(rebuildError(reply.error));
  });
  worker.on('error', (err) => failAll(new Error(`store ${data.role} thread failed: ${err.message}`)));
  worker.on('exit', (code) => failAll(new Error(`store ${data.role} thread exited (code ${code})`)));
  // Pending calls keep the process alive; an idle store does not.
  worker.unref();

  const call = <T>(op: string, ...args: unknown[]): Promise<T> => {
    if (dead !== null) return Promise.reject(dead);
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      waiting.set(id, {
        resolve: (v) => { if (waiting.size === 0) worker.unref(); resolve(v as T); },
        reject: (e) => { if (waiting.size === 0) worker.unref(); reject(e); },
      });
      worker.postMessage({ id, op, args });
    });
  };

  return {
    call,
    close() {
      closing ??= (async () => {
        if (dead === null) await call('close').catch(() => undefined);
        failAll(new Error('store closed'));
        await worker.terminate();
      })();
      return closing;
    },
  };
}
