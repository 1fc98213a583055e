/**
 * `$SVC_HOME/admin.sock` (contract §13): a Unix socket, mode 0600, and the only door for changes an
 * operator makes to a running daemon — replaying dead letters, taking a backup. The HTTP control plane
 * stays read-only. The file mode is the access check: only the daemon's user (and root) can connect.
 *
 * Protocol (admin-protocol.ts): one line of JSON in, one line of JSON out, then the connection closes;
 * what each request does is admin-operations.ts. Reads are bounded (64 KiB per request, 10 s to send
 * it, 16 connections at once), and so are writes (10 s for the answer to be read; close() destroys
 * every connection): a malformed or oversized request gets `{"ok":false,"error":…}` and nothing
 * changes, and no client holds up shutdown.
 */
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { errorText, RuntimeError } from '../core/errors.js';
import type { AdminResponse } from './admin-protocol.js';
import { MAX_REQUEST_BYTES } from './admin-protocol.js';
import type { AdminOperations, AdminOperationsDeps } from './admin-operations.js';
import { createAdminOperations } from './admin-operations.js';

export { ADMIN_ACTOR } from './admin-operations.js';

const REQUEST_TIMEOUT_MS = 10_000;
/** How long an answer may take to be read before its connection is dropped. */
const ANSWER_TIMEOUT_MS = 10_000;
const MAX_CONNECTIONS = 16;

export interface AdminSocketDeps extends AdminOperationsDeps {
  path: string;
  /** The operations, when the daemon shares them with the team console; built from the deps otherwise. */
  operations?: AdminOperations;
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
  const { clock } = deps;
  const operations = deps.operations ?? createAdminOperations(deps);

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
      let request: unknown;
      try {
        request = JSON.parse(buffered.toString('utf8'));
      } catch {
        answer(socket, { ok: false, error: 'bad request: not JSON' });
        return;
      }
      operations.run(request).then((response) => answer(socket, response), (err: unknown) => {
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
