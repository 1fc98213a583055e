/**
 * Worker-thread entry of the SQLite store (sqlite-store.ts starts two: a writer and a reader).
 *
 * Writer: every write that arrives while a transaction runs waits for the next one, and each
 * transaction takes everything waiting (group commit): one fsync serves many ingests, claims and
 * completions, and the fsync happens here, never on the daemon's event loop. Each operation runs in a
 * savepoint of its own, so one that fails (a bad row) fails alone; consecutive ingests share one
 * savepoint and multi-row statements, replayed one per savepoint only when one of them fails. No
 * answer leaves before the commit it depends on: a commit that fails fails every operation of its
 * batch. A batch of only claims, lease
 * renewals and releases commits with synchronous=NORMAL: losing it in a power cut loses nothing (the
 * events simply stay claimable). Anything else commits with FULL: a 202 means the event is on disk.
 *
 * Reader: a read-only connection answering views, chain reads and counts, one at a time.
 */
import type Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { errorText } from '../../core/errors.js';
import { createReader } from './reader.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';
import type { OncallReader } from './oncall-reader.js';
import type { OncallWriter } from './oncall-writer.js';
import { finishBackup, openDatabase, openReadOnly } from './schema.js';
import { createWriter } from './writer.js';
import { createOncallReader } from './oncall-reader.js';
import { createOncallWriter } from './oncall-writer.js';
import type { ReceiptReader, ReceiptWriter } from './receipts.js';
import { createReceiptReader, createReceiptWriter } from './receipts.js';
import { createPager } from './pages.js';
import type { ReportFactsReader, ReportFactsWriter } from './report-facts.js';
import { createReportFactsReader, createReportFactsWriter } from './report-facts.js';
import type { ReportReader } from './report-reader.js';
import { createReportReader } from './report-reader.js';

export type StoreRole = 'writer' | 'reader';

export interface StoreWorkerData {
  role: StoreRole;
  path: string;
  /** Views' byte budget per page (tests lower it). */
  pageBudget?: number;
  /** The writer's idempotency window, ms (sqlite-store.ts applies the default). */
  windowMs?: number;
}

/**
 * What each thread answers, as its handler table: worker-client.ts derives `call`'s names, arguments
 * and results from these, so a misspelt operation or a swapped argument does not compile.
 */
export type WriterOps = Writer & OncallWriter & ReceiptWriter & ReportFactsWriter & { close(): null };
export type ReaderOps = Reader & OncallReader & ReceiptReader & ReportReader & ReportFactsReader
  & { backup(path: string): Promise<{ bytes: number }>; close(): null };

export interface StoreRequest {
  id: number;
  op: string;
  args: unknown[];
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
}

export type StoreReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };
export type StoreReady = { ready: true } | { ready: false; error: SerializedError };

/**
 * Operations a lost commit cannot hurt (see the header): their events, due pages and notifications stay
 * claimable. A notification claim lost in a power cut is claimed again (and its page's state read
 * again, so an acknowledged page's escalation is cancelled then); if it was sent meanwhile, the
 * channel de-duplicates by its deliveryId.
 */
const RELAXED_OPS = new Set(['claimEvents', 'renewLeases', 'releaseClaims', 'claimDuePages', 'claimNotifications', 'touchHeartbeats',
  // A feed offset lost in a power cut reads its last updates again: the actions they carry change nothing twice.
  'savePollOffset',
  // A checkpoint of the report cache lost in a power cut is derived data: the next start folds the rows since the one before.
  'saveReportFacts']);
/** Operations that run on their own, outside a batch. */
const SOLO_OPS = new Set(['prune', 'close']);

export function serializeError(err: unknown): SerializedError {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { name: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: errorText(err) };
}

/**
 * The handler named by a request, or undefined for a name the table does not have (own properties
 * only: `toString` is not an operation). Arguments come off the wire untyped; the client's types
 * (worker-client.ts) are what vouches for them.
 */
function handlerOf(table: object, op: string): ((...args: unknown[]) => unknown) | undefined {
  if (!Object.hasOwn(table, op)) return undefined;
  const fn: unknown = Reflect.get(table, op);
  return typeof fn === 'function' ? (...args: unknown[]): unknown => Reflect.apply(fn, table, args) : undefined;
}

function startWriter(db: Database.Database, windowMs: number, reply: (r: StoreReply | StoreReply[]) => void): (req: StoreRequest) => void {
  const writer = createWriter(db, { windowMs });
  const handlers: Omit<WriterOps, 'close'> = { ...writer, ...createOncallWriter(db, (entry, nowMs) => writer.appendAudit(entry, nowMs)),
    ...createReceiptWriter(db), ...createReportFactsWriter(db) };
  let queue: StoreRequest[] = [];
  let scheduled = false;
  let durability: 'FULL' | 'NORMAL' = 'FULL';
  let closed = false;

  const setDurability = (level: 'FULL' | 'NORMAL'): void => {
    if (level === durability) return;
    db.pragma(`synchronous = ${level}`);
    durability = level;
  };

  type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
  // Each operation as a nested transaction (a savepoint), built once per operation.
  const inSavepoint = new Map<string, (...args: unknown[]) => unknown>();
  const savepointed = (op: string): ((...args: unknown[]) => unknown) => {
    let run = inSavepoint.get(op);
    if (run === undefined) {
      const handler = handlerOf(handlers, op);
      if (handler === undefined) throw new Error(`unknown store operation ${op}`);
      run = db.transaction((...args: unknown[]) => handler(...args));
      inSavepoint.set(op, run);
    }
    return run;
  };
  // An error after which SQLite has rolled the whole transaction back (SQLITE_FULL, an I/O error)
  // fails the batch: what ran before it is gone, and what runs after would commit on its own.
  const one = (r: StoreRequest): Outcome => {
    try {
      return { ok: true, value: savepointed(r.op)(...r.args) };
    } catch (error) {
      if (!db.inTransaction) throw error;
      return { ok: false, error };
    }
  };
  // A run of ingests: one savepoint and multi-row statements for all of them (ingest-batch.ts). When
  // a statement of it fails, the run is rolled back to its savepoint and replayed one ingest per
  // savepoint, so each ingest ends as it would alone (accepted, duplicate, or its own error).
  const ingestRun = db.transaction((requests: StoreRequest[]) => writer.ingestEvents(requests.map((r) => {
    const [event, nowMs] = r.args as Parameters<Writer['ingestEvent']>;
    return { event, nowMs };
  })));
  const batch = db.transaction((requests: StoreRequest[]): Outcome[] => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < requests.length;) {
      let end = i;
      while (end < requests.length && (requests[end] as StoreRequest).op === 'ingestEvent') end++;
      if (end - i < 2) {
        outcomes.push(one(requests[i] as StoreRequest));
        i++;
        continue;
      }
      const run = requests.slice(i, end);
      try {
        for (const value of ingestRun(run)) outcomes.push({ ok: true, value });
      } catch (error) {
        if (!db.inTransaction) throw error;
        for (const r of run) outcomes.push(one(r));
      }
      i = end;
    }
    return outcomes;
  });

  const flush = (): void => {
    scheduled = false;
    const requests = queue;
    queue = [];
    if (requests.length === 0) return;
    let outcomes: Outcome[];
    try {
      setDurability(requests.every((r) => RELAXED_OPS.has(r.op)) ? 'NORMAL' : 'FULL');
      outcomes = batch.immediate(requests);
    } catch (err) {
      // Nothing of the batch was committed (disk full, I/O error): every caller hears it.
      const error = serializeError(err);
      reply(requests.map((r) => ({ id: r.id, ok: false, error })));
      return;
    }
    // One message for the whole batch: the main thread wakes once per commit, not once per answer.
    reply(requests.map((r, i) => {
      const o = outcomes[i] as Outcome;
      return o.ok ? { id: r.id, ok: true, value: o.value } : { id: r.id, ok: false, error: serializeError(o.error) };
    }));
  };

  const solo = (r: StoreRequest): Promise<unknown> => {
    try {
      flush(); // what came before runs first
      if (r.op === 'prune') {
        setDurability('FULL');
        const prune = handlerOf(handlers, r.op);
        if (prune === undefined) throw new Error('the writer has no prune');
        return Promise.resolve(db.transaction(() => prune(...r.args)).immediate());
      }
      closed = true;
      db.close();
      return Promise.resolve(null);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return (r) => {
    if (closed) {
      reply({ id: r.id, ok: false, error: { name: 'Error', message: 'store closed' } });
      return;
    }
    if (SOLO_OPS.has(r.op)) {
      solo(r).then((value) => reply({ id: r.id, ok: true, value }), (err: unknown) => reply({ id: r.id, ok: false, error: serializeError(err) }));
      return;
    }
    if (handlerOf(handlers, r.op) === undefined) {
      reply({ id: r.id, ok: false, error: { name: 'Error', message: `unknown store operation ${r.op}` } });
      return;
    }
    queue.push(r);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

/**
 * SQLite's online backup of `db` into a new file at `path`, then made a self-contained file
 * (finishBackup). It runs on a read-only connection of its own thread (sqlite-store.ts starts one per
 * backup), never on the writer: the whole copy is one step inside one read snapshot (WAL: the writer
 * goes on committing meanwhile), so a copy neither restarts when the store changes nor holds ingest
 * up between steps — the fsync of a multi-gigabyte copy happens here too.
 */
async function backupTo(db: Database.Database, path: string): Promise<{ bytes: number }> {
  // better-sqlite3's first step sets up the copy; from the second on, this many pages at a time: all.
  const result = await db.backup(path, { progress: () => 0x7fffffff });
  finishBackup(path);
  return { bytes: result.totalPages * (db.pragma('page_size', { simple: true }) as number) };
}

/**
 * The reader's statements are prepared on first use, so a read-only store (offline `svc backup`,
 * `svc audit --verify --db`) can back up or verify a file of an older schema it never migrates.
 */
function startReader(db: Database.Database, pageBudget: number | undefined, reply: (r: StoreReply) => void,
  port: MessagePort): (req: StoreRequest) => void {
  let reader: Omit<ReaderOps, 'backup' | 'close'> | null = null;
  return (r) => {
    if (r.op === 'close') {
      db.close();
      reply({ id: r.id, ok: true, value: null });
      return;
    }
    if (r.op === 'backup') {
      backupTo(db, r.args[0] as string).then((value) => reply({ id: r.id, ok: true, value }),
        (err: unknown) => reply({ id: r.id, ok: false, error: serializeError(err) }));
      return;
    }
    try {
      reader ??= { ...createReader(db, pageBudget), ...createOncallReader(db, createPager(db, pageBudget)), ...createReceiptReader(db),
        ...createReportReader(db), ...createReportFactsReader(db) };
      const handler = handlerOf(reader, r.op);
      if (handler === undefined) throw new Error(`unknown store operation ${r.op}`);
      const value = handler(...r.args);
      // An encoded page crosses as its buffer, moved rather than copied.
      const items = (value as { items?: unknown } | null)?.items;
      if (items instanceof Uint8Array && items.buffer instanceof ArrayBuffer) {
        port.postMessage({ id: r.id, ok: true, value } satisfies StoreReply, [items.buffer]);
      }
      else reply({ id: r.id, ok: true, value });
    } catch (err) {
      reply({ id: r.id, ok: false, error: serializeError(err) });
    }
  };
}

const port = parentPort;
if (port !== null) {
  const { role, path, pageBudget, windowMs } = (workerData as { data: StoreWorkerData }).data;
  const reply = (r: StoreReply | StoreReply[]): void => port.postMessage(r);
  try {
    const db = role === 'writer' ? openDatabase(path) : openReadOnly(path);
    if (role === 'writer' && windowMs === undefined) throw new Error('the store writer needs its idempotency window');
    const handle = role === 'writer' ? startWriter(db, windowMs ?? 0, reply) : startReader(db, pageBudget, reply, port);
    // The client sends the requests of one turn of its event loop as one message (worker-client.ts).
    port.on('message', (m: StoreRequest | StoreRequest[]) => {
      if (Array.isArray(m)) for (const r of m) handle(r);
      else handle(m);
    });
    port.postMessage({ ready: true } satisfies StoreReady);
  } catch (err) {
    port.postMessage({ ready: false, error: serializeError(err) } satisfies StoreReady);
  }
}
