/**
 * The CLI's side of the daemon's admin socket (daemon/admin-socket.ts): one request, one answer.
 * `null` when no daemon listens there (no socket file, or nobody accepting), so a command can fall back
 * (`svc backup`) or say the daemon is not running (`svc dlq replay`).
 */
import { createConnection } from 'node:net';
import type { Clock } from '../core/clock.js';
import { RuntimeError, errorText } from '../core/errors.js';
import type { AdminRequest, AdminResponse } from '../daemon/admin-protocol.js';

/** Most bytes of an answer read (a replay of 1,000 ids answers with ~60 KiB). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export function adminRequest(path: string, request: AdminRequest, opts: { clock: Clock; timeoutMs: number }): Promise<AdminResponse | null> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let answer = Buffer.alloc(0);
    let connected = false;
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      opts.clock.clearTimer(timer);
      socket.destroy();
      fn();
    };
    const timer = opts.clock.setTimer(() => settle(() => reject(new RuntimeError('EADMIN_TIMEOUT',
      `the daemon did not answer on ${path} within ${Math.round(opts.timeoutMs / 1000)} s`))), opts.timeoutMs);
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      if (answer.length > MAX_ANSWER_BYTES) settle(() => reject(new RuntimeError('EADMIN_PROTOCOL', 'admin socket answer too large')));
      const newline = answer.indexOf(0x0a);
      if (newline < 0) return;
      settle(() => {
        try {
          resolve(JSON.parse(answer.subarray(0, newline).toString('utf8')) as AdminResponse);
        } catch {
          reject(new RuntimeError('EADMIN_PROTOCOL', 'admin socket answered something that is not JSON'));
        }
      });
    });
    socket.on('end', () => settle(() => reject(new RuntimeError('EADMIN_PROTOCOL', 'the daemon closed the admin socket without an answer'))));
    socket.on('error', (err: NodeJS.ErrnoException) => settle(() => {
      if (!connected && (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')) resolve(null);
      else reject(new RuntimeError('EADMIN_SOCKET', `admin socket ${path}: ${errorText(err)}`));
    }));
  });
}
