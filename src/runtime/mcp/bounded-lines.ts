/**
 * Turns a child's stderr byte stream into log lines without letting a chatty or broken server flood the
 * agent log or grow memory: lines are cut at `maxLineChars`, and at most `maxLines` are emitted per
 * `windowMs`; the rest are counted and the count rides on the next emitted line (`suppressed`).
 */
import { StringDecoder } from 'node:string_decoder';
import type { Clock } from '../../core/clock.js';

export interface BoundedLinesOptions {
  clock: Clock;
  maxLineChars: number;
  maxLines: number;
  windowMs: number;
  /** `suppressed`: lines dropped since the previous emitted one (0 most of the time). */
  emit: (line: string, suppressed: number) => void;
}

export interface BoundedLines {
  write(chunk: Buffer | string): void;
  /** Emits what is left of an unterminated last line. */
  end(): void;
}

export function createBoundedLines(options: BoundedLinesOptions): BoundedLines {
  const { clock, maxLineChars, maxLines, windowMs, emit } = options;
  const decoder = new StringDecoder('utf8');
  let partial = '';
  /** The current line passed maxLineChars and was emitted cut: skip the rest of it. */
  let skipping = false;
  let windowStart = -Infinity;
  let inWindow = 0;
  let suppressed = 0;

  const push = (line: string): void => {
    const now = clock.now();
    if (now - windowStart >= windowMs) {
      windowStart = now;
      inWindow = 0;
    }
    if (inWindow >= maxLines) {
      suppressed += 1;
      return;
    }
    inWindow += 1;
    const dropped = suppressed;
    suppressed = 0;
    emit(line, dropped);
  };

  const take = (text: string): void => {
    let rest = text;
    for (;;) {
      const nl = rest.indexOf('\n');
      const piece = nl === -1 ? rest : rest.slice(0, nl);
      if (!skipping) {
        partial += piece;
        if (partial.length > maxLineChars) {
          push(`${partial.slice(0, maxLineChars)}…`);
          partial = '';
          skipping = true;
        }
      }
      if (nl === -1) return;
      const line = partial.replace(/\r$/, '');
      if (!skipping && line.trim() !== '') push(line);
      partial = '';
      skipping = false;
      rest = rest.slice(nl + 1);
    }
  };

  return {
    write: (chunk) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk)),
    end() {
      take(decoder.end());
      if (!skipping && partial.trim() !== '') push(partial);
      partial = '';
      skipping = false;
    },
  };
}
