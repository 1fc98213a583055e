/**
 * The main thread's side of a store worker (store-worker.ts): requests with ids, replies matched back,
 * errors rebuilt with their class (a bad cursor stays an InvalidCursorError, a refused file a
 * RuntimeError), and a worker that dies fails every call waiting on it instead of leaving it hanging.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../core/worker.js';
import { isRuntimeErrorCode, RuntimeError } from '../../core/errors.js';
import { InvalidCursorError } from '../cursor.js';
import type { ReaderOps, SerializedError, StoreReady, StoreReply, StoreRequest, StoreWorkerData, WriterOps } from './store-worker.js';

/** Arguments and (awaited) result of one handler of a thread's table (store-worker.ts). */
export type OpArgs<F> = F extends (...args: infer A) => unknown ? A : never;
export type OpResult<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/**
 * A call to the thread whose handler table is `Ops`: the name must be one of its operations, the
 * arguments that operation's, and the answer its result — `call('ingestEvnt')` or swapped arguments
 * do not compile (worker-client.test.ts).
 */
export type WorkerCall<Ops> = <K extends keyof Ops & string>(op: K, ...args: OpArgs<Ops[K]>) => Promise<OpResult<Ops[K]>>;

export interface WorkerClient<Ops extends { close(): null }> {
  call: WorkerCall<Ops>;
  /** Sends `close`, waits for it, stops the thread. Idempotent. */
  close(): Promise<void>;
}

/** Most requests of one turn held back for one message; past it they go as they come (see `post`). */
const POST_EVERY = 16;

export function rebuildError(e: SerializedError): Error {
  if (e.name === 'InvalidCursorError') return new InvalidCursorError(e.message);
  if (e.name === 'RuntimeError' && isRuntimeErrorCode(e.code)) return new RuntimeError(e.code, e.message);
  const err = new Error(e.message);
  if (e.code !== undefined) (err as Error & { code: string }).code = e.code;
  return err;
}

export function startWorkerClient(data: StoreWorkerData & { role: 'writer' }): Promise<WorkerClient<WriterOps>>;
export function startWorkerClient(data: StoreWorkerData & { role: 'reader' }): Promise<WorkerClient<ReaderOps>>;
export async function startWorkerClient(data: StoreWorkerData): Promise<WorkerClient<WriterOps> | WorkerClient<ReaderOps>> {
  const worker: Worker = startModuleWorker(new URL('./store-worker.js', import.meta.url), import.meta.url, data);
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let dead: Error | null = null;
  let closing: Promise<void> | null = null;

  const failAll = (err: Error): void => {
    dead ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    worker.unref();
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

  // Pending calls keep the process alive; an idle store does not.
  const settle = (reply: StoreReply): void => {
    const w = waiting.get(reply.id);
    if (w === undefined) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if (reply.ok) w.resolve(reply.value);
    else w.reject(rebuildError(reply.error));
  };
  // The writer answers a whole group commit in one message (store-worker.ts).
  worker.on('message', (m: StoreReply | StoreReply[]) => {
    if (Array.isArray(m)) for (const r of m) settle(r);
    else settle(m);
  });
  worker.on('error', (err) => failAll(new Error(`store ${data.role} thread failed: ${err.message}`)));
  worker.on('exit', (code) => failAll(new Error(`store ${data.role} thread exited (code ${code})`)));
  worker.unref();

  // Requests made in one turn of the event loop go as one message, posted once the turn is over: one
  // wake-up of the thread and one structured clone per turn instead of one per request (a burst of
  // webhooks on many connections), and they reach the writer together, so they share a commit.
  // A turn that makes many (64 connections' webhooks read in one go) posts every POST_EVERY of them
  // as it goes: the writer commits the first while this thread still reads the rest, instead of the
  // two threads taking turns over the whole set: ≈30 % more signed ingests a second, same CPU per request
  // (bench/webhook-ingest.ts, 2026-11-26: 5.8–6.0k against 4.3–4.6k req/s, interleaved).
  let outbox: StoreRequest[] = [];
  const post = (): void => {
    const requests = outbox;
    if (requests.length === 0) return;
    outbox = [];
    worker.postMessage(requests.length === 1 ? requests[0] : requests);
  };

  // The one untyped step: what the thread answers is what its handler returned (the overloads above
  // tie the table to the thread's role).
  const send = (op: string, args: unknown[]): Promise<never> => {
    if (dead !== null) return Promise.reject(dead);
    const id = next++;
    return new Promise<never>((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      // The promise's own functions, no wrappers: one call's bookkeeping is one map entry.
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      outbox.push({ id, op, args });
      if (outbox.length >= POST_EVERY) post();
      else if (outbox.length === 1) setImmediate(post);
    });
  };

  return {
    call: (op: string, ...args: unknown[]) => send(op, args),
    close() {
      closing ??= (async () => {
        if (dead === null) await send('close', []).catch(() => undefined);
        failAll(new Error('store closed'));
        await worker.terminate();
      })();
      return closing;
    },
  };
}
