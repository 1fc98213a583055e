/**
 * How much noise an MCP server may make per window: bytes (of stderr, of dropped over-long stdout
 * lines, of stdout lines it was not asked for) and stdout lines it was not asked for — a short line
 * costs the daemon a JSON parse and a schema check however few its bytes. Past either budget the
 * server is flooding: it keeps the daemon's CPU busy reading pipes however cheaply each byte is
 * handled, so the supervisor stops reading it and restarts it (with back-off) instead of reading on.
 */
import type { Clock } from '../../core/clock.js';

export interface FloodBudget {
  /** Counts `bytes` and `lines`; true once the window's budget is exceeded (and from then on for this budget). */
  add(bytes: number, lines?: number): boolean;
  /** Bytes counted in the current window. */
  bytes(): number;
  /** Lines counted in the current window. */
  lines(): number;
}

export function createFloodBudget(options: { clock: Clock; windowMs: number; maxBytes: number; maxLines: number }): FloodBudget {
  const { clock, windowMs, maxBytes, maxLines } = options;
  let windowStart = -Infinity;
  let bytesInWindow = 0;
  let linesInWindow = 0;
  let over = false;
  return {
    add(bytes, lines = 0) {
      if (over) return true;
      const now = clock.monotonic();
      if (now - windowStart >= windowMs) {
        windowStart = now;
        bytesInWindow = 0;
        linesInWindow = 0;
      }
      bytesInWindow += bytes;
      linesInWindow += lines;
      over = bytesInWindow > maxBytes || linesInWindow > maxLines;
      return over;
    },
    bytes: () => bytesInWindow,
    lines: () => linesInWindow,
  };
}
