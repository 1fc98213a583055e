/**
 * Newline-delimited framing of a child's stdout, linear in what it reads: a line's pieces are kept as
 * they arrive and joined once, when its newline comes. (The SDK's ReadBuffer concatenates its whole
 * buffer with every chunk: an endless line costs quadratic copying, half a second of a stalled event
 * loop before its 10 MiB cap.) A line longer than `maxLineBytes` is dropped as it streams — its bytes
 * are counted, never kept — and reported once it ends or passes the cap. Blank lines are passed on
 * too (as ''): reading them costs the daemon like any other, so the caller counts them.
 */

export interface LineFramerOptions {
  maxLineBytes: number;
  /** A whole line, `\r` stripped ('' for a blank one); `bytes`: its length on the wire, newline included. */
  onLine: (line: string, bytes: number) => void;
  /** Bytes of an over-long line dropped since the last call (called as they are skipped); `first` on the first call of each line. */
  onDropped: (bytes: number, first: boolean) => void;
}

export interface LineFramer {
  write(chunk: Buffer): void;
  clear(): void;
  /** Frames nothing more, from the line being handled on (a flooding child is no longer read). */
  stop(): void;
}

const NEWLINE = 0x0a;

export function createLineFramer(options: LineFramerOptions): LineFramer {
  const { maxLineBytes, onLine, onDropped } = options;
  let pieces: Buffer[] = [];
  let size = 0;
  /** Inside a line that passed maxLineBytes: its bytes are skipped up to its newline. */
  let skipping = false;
  let stopped = false;

  const drop = (bytes: number): void => {
    skipping = true;
    pieces = [];
    size = 0;
    onDropped(bytes, true);
  };

  return {
    write(chunk) {
      let start = 0;
      while (start < chunk.length && !stopped) {
        const nl = chunk.indexOf(NEWLINE, start);
        const end = nl === -1 ? chunk.length : nl;
        const piece = chunk.subarray(start, end);
        if (skipping) {
          if (piece.length > 0) onDropped(piece.length, false);
        } else if (size + piece.length > maxLineBytes) {
          drop(size + piece.length);
        } else if (piece.length > 0) {
          pieces.push(piece);
          size += piece.length;
        }
        if (nl === -1) return;
        if (!skipping) {
          const bytes = size + 1;
          const line = (pieces.length === 1 ? pieces[0] as Buffer : Buffer.concat(pieces, size)).toString('utf8').replace(/\r$/, '');
          pieces = [];
          size = 0;
          onLine(line.trim() === '' ? '' : line, bytes);
        }
        skipping = false;
        start = nl + 1;
      }
    },
    clear() {
      pieces = [];
      size = 0;
      skipping = false;
    },
    stop() {
      stopped = true;
      pieces = [];
      size = 0;
    },
  };
}
