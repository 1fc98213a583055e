/** The vocabulary shared by the file tailer and its subscribers. */

/**
 * Where a subscriber stands in one log file: just after the line that ended at byte `end` of the
 * file whose inode is `ino` (0: the file did not exist). `len` and `crc` (CRC-32 of the bytes
 * [end - len, end), newline included) identify that line, so a resume can tell the same file from a
 * truncated-and-rewritten or replaced one; `len` 0 means "not known", and only the newline before
 * `end` is checked.
 */
export interface TailPosition {
  ino: number;
  end: number;
  len: number;
  crc: number;
}

/** One complete line of a log file. Shared by every subscriber of the file: never mutate it. */
export interface TailLine {
  /** The line decoded as UTF-8, without its newline; '' when `tooLong`. */
  readonly text: string;
  /** Byte offsets [start, end) in the current generation of the file; `end` is just after the newline. */
  readonly start: number;
  readonly end: number;
  readonly ino: number;
  /** CRC-32 of bytes [start, end). */
  readonly crc: number;
  /** Longer than the tailer's line limit: its bytes were skipped, not kept. */
  readonly tooLong: boolean;
}

/**
 * - `truncated`: the file shrank below what was read; reading restarts at byte 0.
 * - `rotated`: another file (inode) now sits at the path; reading continues there from byte 0.
 * - `reset`: a resume position did not match the file any more (rotated, truncated or rewritten
 *   meanwhile); the subscriber gets the file from byte 0.
 */
export const TAIL_NOTICES = ['truncated', 'rotated', 'reset'] as const;
export type TailNotice = (typeof TAIL_NOTICES)[number];

export interface TailListener {
  /** Called once, before anything else, with the position the subscription starts from. */
  start(position: TailPosition): void;
  /** Complete lines in file order; `batch` is shared and must not be kept beyond the call. */
  lines(batch: readonly TailLine[]): void;
  /** A generation change; `position` is where the subscriber now stands. */
  notice(kind: TailNotice, position: TailPosition): void;
  /** The file cannot be read (not a regular file, a symlink, permissions, I/O). Tailing goes on. */
  error(err: Error): void;
  /** Called once, when any replay is done and the subscriber receives live lines from here on. */
  live?(): void;
}

export interface SubscribeOptions {
  /** Replay the file from byte 0 (the `since` replay), then follow it. */
  fromStart: boolean;
  /** Resume just after this byte offset (a line end), then follow; wins over `fromStart`. */
  afterOffset?: number;
  /** The rest of the resume position; checked against the file before `afterOffset` is trusted. */
  verify?: { ino: number; len: number; crc: number };
  /**
   * Back-pressure for the historical part: consulted between catch-up reads; a promise holds the
   * replay until it settles. Live lines are never held (the subscriber's buffer rule handles them).
   */
  waitForRoom?: () => Promise<void> | null;
}

export interface Subscription {
  unsubscribe(): void;
}
