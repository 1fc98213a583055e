/**
 * How much noise an MCP server may make: bytes of stderr and of dropped (over-long) stdout lines per
 * window. Past the budget the server is flooding: it keeps the daemon's CPU busy reading pipes however
 * cheaply each byte is handled, so the supervisor restarts it (with back-off) instead of reading on.
 */
import type { Clock } from '../../core/clock.js';

export interface FloodBudget {
  /** Counts `bytes`; true once the window's budget is exceeded (and from then on for this budget). */
  add(bytes: number): boolean;
  /** Bytes counted in the current window. */
  bytes(): number;
}

export function createFloodBudget(options: { clock: Clock; windowMs: number; maxBytes: number }): FloodBudget {
  const { clock, windowMs, maxBytes } = options;
  let windowStart = -Infinity;
  let inWindow = 0;
  let over = false;
  return {
    add(bytes) {
      if (over) return true;
      const now = clock.monotonic();
      if (now - windowStart >= windowMs) {
        windowStart = now;
        inWindow = 0;
      }
      inWindow += bytes;
      over = inWindow > maxBytes;
      return over;
    },
    bytes: () => inWindow,
  };
}
