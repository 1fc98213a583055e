/**
 * What one `svc fleet` run takes from one host at most (issue 19: a hostile or broken host must not
 * hold the command or its memory). A host that passes a limit is reported failed with a short reason,
 * and the other hosts still print:
 *
 * - `deadlineMs` (fleet.yaml, default 2 min): the whole of it — every page of a view, a `logs` replay
 *   up to its `caught-up` frame — waiting for a request slot included; not `logs -f`, which never ends;
 * - MAX_HOST_BYTES of answers in all (each page is also capped as it streams: control-client.ts);
 * - MAX_HOST_PAGES pages, and no cursor sent twice (control-client.ts `getAllPages`);
 * - no SSE line over MAX_SSE_LINE_BYTES (log-stream.ts), also under `logs -f`.
 */
import type { FleetHost } from '../../config/fleet.js';
import type { Clock } from '../../core/clock.js';
import { withDeadline } from '../../core/deadline.js';
import { RuntimeError } from '../../core/errors.js';

/** Answer bytes one host may send in one run: 16 full 4 MiB pages (contract §11.4), ~64,000 rows of 1 KiB. */
export const MAX_HOST_BYTES = 64 * 1024 * 1024;
/** Pages one host may send in one run (10 million rows at the default page size; the byte cap comes first). */
export const MAX_HOST_PAGES = 10_000;

/**
 * `op` with a signal that aborts after the host's `deadlineMs` (or when `outer` does); past the
 * deadline a RuntimeError `no complete answer within N ms`, at once, whatever `op` is waiting for.
 */
export async function withinHostDeadline<T>(host: FleetHost, clock: Clock, outer: AbortSignal | undefined,
  op: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const got = await withDeadline(host.deadlineMs, clock, outer, op);
  if (got.ok) return got.value;
  if (got.why === 'timeout') {
    throw new RuntimeError('EDEADLINE', `${host.name}: no complete answer within ${host.deadlineMs} ms (deadlineMs in fleet.yaml)`,
      `no complete answer within ${host.deadlineMs} ms`);
  }
  throw got.error;
}
