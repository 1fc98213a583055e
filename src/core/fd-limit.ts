/**
 * The process's open-file limit, and the check that the listeners' connection caps fit under it
 * (contract §11.2): a flood that fills one listener to its cap must leave descriptors for the other
 * listener, the store, the log files, the MCP servers and the exporters.
 */
import { readFileSync } from 'node:fs';
import { RuntimeError } from './errors.js';

/** Descriptors kept for everything but client connections. */
export const RESERVED_DESCRIPTORS = 256;

/** The soft `Max open files` limit (Linux /proc), or null where it cannot be read. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    if (soft === 'unlimited') return Number.POSITIVE_INFINITY;
    const n = Number(soft);
    return Number.isSafeInteger(n) ? n : null;
  } catch {
    return null;
  }
}

/** Refuses to start when the caps of every listener plus the reserve exceed the limit. */
export function checkDescriptorBudget(listeners: ReadonlyArray<{ name: string; maxConnections: number }>, limit = openFileLimit()): void {
  if (limit === null) return;
  const needed = listeners.reduce((n, l) => n + l.maxConnections, RESERVED_DESCRIPTORS);
  if (needed <= limit) return;
  const caps = listeners.map((l) => `${l.name} ${l.maxConnections}`).join(', ');
  throw new RuntimeError('EFDLIMIT', `the open-file limit is ${limit}, but the listeners may hold ${needed - RESERVED_DESCRIPTORS} connections `
    + `(${caps}) and svc keeps ${RESERVED_DESCRIPTORS} descriptors for its files and processes: raise the limit (ulimit -n, LimitNOFILE) `
    + 'or lower maxConnections on the sources or controlPlane');
}
