/**
 * `$SVC_HOME/admin.sock` (contract §13): a Unix socket, mode 0600, and the only door for changes an
 * operator makes to a running daemon — replaying dead letters, taking a backup. The HTTP control plane
 * stays read-only. The file mode is the access check: only the daemon's user (and root) can connect.
 *
 * Protocol (admin-protocol.ts): one line of JSON in, one line of JSON out, then the connection closes.
 * Reads are bounded (64 KiB per request, 10 s to send it, 16 connections at once), and so are writes
 * (10 s for the answer to be read; close() destroys every connection): a malformed or oversized
 * request gets `{"ok":false,"error":…}` and nothing changes, and no client holds up shutdown.
 */
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { Clock } from '../core/clock.js';
import { errorText, RuntimeError } from '../core/errors.js';
import type { ReplayResult, Store } from '../store/store.js';
import type { AdminResponse, ParsedAdminRequest } from './admin-protocol.js';
import { MAX_ANSWER_IDS, MAX_REQUEST_BYTES, adminRequestSchema } from './admin-protocol.js';
import { backupStore } from './backup.js';
import type { ReloadResult } from './config-reload.js';
import type { AdminOncallDeps } from './admin-oncall.js';
import { executeOncall } from './admin-oncall.js';

const REQUEST_TIMEOUT_MS = 10_000;
/** Dead letters per replay transaction: a few milliseconds of the writer each. */
const REPLAY_CHUNK = 500;
/** How long an answer may take to be read before its connection is dropped. */
const ANSWER_TIMEOUT_MS = 10_000;
const MAX_CONNECTIONS = 16;
/** Who the audit rows of socket requests name (the socket's mode means: the daemon's own user). */
export const ADMIN_ACTOR = 'admin-socket';

export interface AdminSocketDeps {
  path: string;
  store: Store;
  /** The store's file, so a backup can never be written over it (null: not a file store). */
  storePath: string | null;
  clock: Clock;
  pid: number;
  /** Replayed events are waiting: the dispatcher should look now, not at its next poll. */
  wake(): void;
  /** `svc reload` (config-reload.ts); absent: refused. */
  reload?: () => Promise<ReloadResult>;
  /** Pages and overrides (contract §17.5, §17.6); absent: those operations are refused. */
  oncall?: Omit<AdminOncallDeps, 'store' | 'clock'>;
  report(line: string): void;
}

export interface AdminSocket {
  close(): Promise<void>;
}

/** Removes a socket file left by a daemon that died; refuses to touch anything that is not a socket. */
function clearStale(path: string): void {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return; // nothing there
  }
  if (!isSocket) throw new RuntimeError('EADMIN_SOCKET', `${path} exists and is not a socket; refusing to replace it`);
  // The pid file guarantees no other daemon of this home runs: the socket is stale.
  rmSync(path, { force: true });
}

export async function startAdminSocket(deps: AdminSocketDeps): Promise<AdminSocket> {
  const { clock, store } = deps;

  /**
   * A replay in chunks of REPLAY_CHUNK letters, each its own store transaction with its audit rows,
   * so `--all` of 30,000 letters never holds the writer (and ingest) for one long transaction; the
   * dispatcher is woken after each chunk. The answer stays small: counts, and the first ids of each list.
   */
  async function replayInChunks(request: Extract<ParsedAdminRequest, { op: 'dlq.replay' }>): Promise<Extract<AdminResponse, { op: 'dlq.replay' }>> {
    const answer = { ok: true as const, op: 'dlq.replay' as const, replayed: [] as string[], missing: [] as string[], replayedCount: 0, missingCount: 0 };
    const take = (r: ReplayResult): void => {
      answer.replayedCount += r.replayed.length;
      answer.missingCount += r.missing.length;
      answer.replayed.push(...r.replayed.slice(0, MAX_ANSWER_IDS - answer.replayed.length));
      answer.missing.push(...r.missing.slice(0, MAX_ANSWER_IDS - answer.missing.length));
      if (r.replayed.length > 0) deps.wake();
    };
    if (request.ids !== undefined) {
      for (let i = 0; i < request.ids.length; i += REPLAY_CHUNK) {
        take(await store.replayDeadLetters({ ids: request.ids.slice(i, i + REPLAY_CHUNK) }, request.actor ?? ADMIN_ACTOR, clock.now(), request.via));
      }
      return answer;
    }
    const filter = { ...(request.source !== undefined ? { sourceId: request.source } : {}),
      ...(request.reason !== undefined ? { reason: request.reason } : {}) };
    for (let afterSeq = 0; ;) {
      const r = await store.replayDeadLetters({ ...filter, afterSeq, limit: REPLAY_CHUNK }, request.actor ?? ADMIN_ACTOR, clock.now(), request.via);
      take(r);
      if (r.lastSeq === undefined || r.replayed.length + r.missing.length < REPLAY_CHUNK) return answer;
      afterSeq = r.lastSeq;
    }
  }

  async function execute(request: ParsedAdminRequest): Promise<AdminResponse> {
    switch (request.op) {
      case 'ping':
        return { ok: true, op: 'ping', pid: deps.pid };
      case 'dlq.replay': {
        const answer = await replayInChunks(request);
        deps.report(`admin: replayed ${answer.replayedCount} dead letter(s)${answer.missingCount > 0 ? `, ${answer.missingCount} not found` : ''}`);
        return answer;
      }
      case 'backup': {
        const started = clock.monotonic();
        const result = await backupStore(store, request.path, { force: request.force, storePath: deps.storePath });
        await store.appendAudit({ kind: 'store.backup', actor: ADMIN_ACTOR, agentId: null,
          data: { path: result.path, bytes: result.bytes, durationMs: Math.round(clock.monotonic() - started) } }, clock.now());
        deps.report(`admin: backup of ${result.bytes} bytes written to ${result.path}`);
        return { ok: true, op: 'backup', ...result };
      }
      case 'config.reload': {
        if (deps.reload === undefined) return { ok: false, error: 'this daemon cannot reload its configuration: restart it' };
        const result = await deps.reload();
        return result.ok ? { ok: true, op: 'config.reload', files: result.files, agents: result.agents } : { ok: false, error: result.error };
      }
      case 'page.act':
      case 'override.add':
      case 'override.ls':
      case 'override.rm':
      case 'silence.add':
      case 'silence.ls':
      case 'silence.expire':
        return executeOncall({ store, clock, engine: null, configs: new Map(), ...deps.oncall }, request);
    }
  }

  // Every open connection: close() destroys them all, so no client holds the daemon's shutdown —
  // not a silent one still sending its request, nor one that stopped reading its answer.
  const connections = new Set<Socket>();

  /**
   * Writes the answer and lets go: destroyed once it is written, or after ANSWER_TIMEOUT_MS when the
   * client does not read it (an unread answer must not keep a connection, or the daemon, forever).
   */
  function answer(socket: Socket, response: AdminResponse): void {
    if (socket.destroyed) return;
    const timer = clock.setTimer(() => socket.destroy(), ANSWER_TIMEOUT_MS);
    socket.once('close', () => clock.clearTimer(timer));
    socket.end(`${JSON.stringify(response)}\n`, () => socket.destroy());
  }

  function serve(socket: Socket): void {
    let buffered = Buffer.alloc(0);
    let done = false;
    connections.add(socket);
    const timer = clock.setTimer(() => {
      if (done) return;
      done = true;
      answer(socket, { ok: false, error: `no complete request within ${REQUEST_TIMEOUT_MS / 1000} s` });
    }, REQUEST_TIMEOUT_MS);
    const finish = (): void => {
      done = true;
      clock.clearTimer(timer);
      socket.pause();
    };
    socket.on('error', () => { finish(); });
    socket.on('close', () => { clock.clearTimer(timer); connections.delete(socket); });
    socket.on('data', (chunk: Buffer) => {
      if (done) return;
      const newline = chunk.indexOf(0x0a);
      const take = newline < 0 ? chunk : chunk.subarray(0, newline);
      if (buffered.length + take.length > MAX_REQUEST_BYTES) {
        finish();
        answer(socket, { ok: false, error: `request over ${MAX_REQUEST_BYTES} bytes` });
        return;
      }
      buffered = Buffer.concat([buffered, take]);
      if (newline < 0) return;
      finish();
      let request: ParsedAdminRequest;
      try {
        const parsed = adminRequestSchema.safeParse(JSON.parse(buffered.toString('utf8')));
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          answer(socket, { ok: false, error: `bad request: ${issue ? `${issue.path.join('.') || '(request)'}: ${issue.message}` : 'invalid'}` });
          return;
        }
        request = parsed.data;
      } catch {
        answer(socket, { ok: false, error: 'bad request: not JSON' });
        return;
      }
      execute(request).then((response) => answer(socket, response), (err: unknown) => {
        // Expected refusals (a path that exists, a closed store) carry their own text; it names no secret.
        answer(socket, { ok: false, error: errorText(err) });
      });
    });
  }

  clearStale(deps.path);
  const server: Server = createServer({ allowHalfOpen: false }, serve);
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new RuntimeError('EADMIN_SOCKET', `admin socket ${deps.path}: ${errorText(err)}`)));
    // The socket file is created by listen(), synchronously: under umask 077 it is never, even for an
    // instant, open to anyone but this user.
    const umask = process.umask(0o077);
    try {
      server.listen(deps.path, () => resolve());
    } finally {
      process.umask(umask);
    }
  });
  // And 0600 whatever happened before (the umask covers creation; this covers the file as it is).
  chmodSync(deps.path, 0o600);
  server.on('error', (err) => deps.report(`admin socket error: ${errorText(err)}`));

  let closing: Promise<void> | null = null;
  return {
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
        connections.clear();
        rmSync(deps.path, { force: true });
      });
      return closing;
    },
  };
}
