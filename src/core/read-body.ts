/**
 * The one home for reading an HTTP answer's body, for every client the CLI and the daemon run (a
 * control plane, a fleet host, a model server, a channel's vendor, a token endpoint).
 *
 * Reads an HTTP answer's body with a cap that holds while it streams (contract §11.7: "a JWKS or
 * discovery answer over 1 MiB is refused while it streams"): a `Content-Length` over the cap is
 * refused before a byte is read, and a body that passes the cap is cut off right there — the stream
 * is cancelled and `abort` (the request's own controller) is called, so the connection is closed and
 * nothing more is buffered, whatever the server meant to send.
 */

/** The body was (or announced it would be) larger than the cap. The message never quotes the body. */
export class BodyTooLargeError extends Error {
  readonly code = 'EBODYTOOLARGE';
  constructor(readonly maxBytes: number, readonly declaredBytes: number | null) {
    super(declaredBytes !== null
      ? `answer of ${declaredBytes} bytes (Content-Length) is over ${maxBytes} bytes`
      : `answer is over ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * The body as UTF-8 text, at most `maxBytes`. Throws BodyTooLargeError past the cap (after cancelling
 * the stream and calling `abort`), and whatever reading throws (a reset, an aborted signal).
 */
export async function readBodyText(res: Response, maxBytes: number, abort?: () => void): Promise<string> {
  const declared = res.headers.get('content-length');
  const declaredBytes = declared !== null && /^\d{1,20}$/.test(declared.trim()) ? Number(declared.trim()) : null;
  const refuse = async (error: BodyTooLargeError, cancel: () => Promise<void>): Promise<never> => {
    abort?.();
    await cancel().catch(() => undefined);
    throw error;
  };
  if (declaredBytes !== null && declaredBytes > maxBytes) {
    return refuse(new BodyTooLargeError(maxBytes, declaredBytes), async () => { await res.body?.cancel(); });
  }
  if (res.body === null) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || value === undefined) break;
    size += value.byteLength;
    if (size > maxBytes) return refuse(new BodyTooLargeError(maxBytes, null), () => reader.cancel());
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * At most the first `maxBytes` of the body as UTF-8 text, for an answer kept only as evidence (a
 * channel's error text): reading stops at the cap and the rest is never pulled — the stream is
 * cancelled, which frees the connection. Never longer than the cap, whatever the server sends; a
 * character cut at the cap is dropped. Throws what reading throws (a reset, an aborted signal).
 */
export async function readBodyPrefix(res: Response, maxBytes: number): Promise<string> {
  if (res.body === null) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (done || value === undefined) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // Cancelling a finished stream does nothing; cancelling an unfinished one frees the socket.
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, size).subarray(0, maxBytes), { stream: true });
}

/** A line of a streamed answer ran past the cap without a line break. The message never quotes it. */
export class LineTooLongError extends Error {
  readonly code = 'ELINETOOLONG';
  constructor(readonly maxLineBytes: number) {
    super(`a line of the answer is over ${maxLineBytes} bytes`);
    this.name = 'LineTooLongError';
  }
}

/** A body read as it streams (server-sent events): text as it comes, every line within a cap. */
export interface BodyTextStream {
  /** The next piece of text (UTF-8, characters split across reads kept whole), or null at the end. */
  read(): Promise<string | null>;
  /** Stops reading and frees the connection (a pending read() then ends). */
  cancel(): Promise<void>;
}

/**
 * The streaming sibling of readBodyText for answers that never end (GET /logs): there is no cap on
 * the whole, but none of its lines (ended by LF or CR) may pass `maxLineBytes` — a reader that waits
 * for a line break would otherwise buffer whatever the server sends. Past the cap, read() cancels the
 * stream, calls `abort` and throws LineTooLongError.
 */
export function streamBodyText(res: Response, maxLineBytes: number, abort?: () => void): BodyTextStream {
  const reader = res.body === null ? null : (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let run = 0; // bytes since the last line break
  return {
    async read() {
      if (reader === null) return null;
      const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (done || value === undefined) return null;
      run = longestRun(value, run, maxLineBytes);
      if (run < 0) {
        abort?.();
        await reader.cancel().catch(() => undefined);
        throw new LineTooLongError(maxLineBytes);
      }
      return decoder.decode(value, { stream: true });
    },
    async cancel() {
      await reader?.cancel().catch(() => undefined);
    },
  };
}

/**
 * The length of the line still open after `chunk`, given `run` bytes of it before; -1 as soon as
 * any line passes `max`. Line breaks are found with indexOf (native), not byte by byte.
 */
function longestRun(chunk: Uint8Array, run: number, max: number): number {
  let from = 0;
  // The next LF and CR at or after `from` (-1: none left), each searched again only once passed.
  let lf = chunk.indexOf(0x0a);
  let cr = chunk.indexOf(0x0d);
  for (;;) {
    if (lf >= 0 && lf < from) lf = chunk.indexOf(0x0a, from);
    if (cr >= 0 && cr < from) cr = chunk.indexOf(0x0d, from);
    const brk = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
    if (brk < 0) {
      const open = run + chunk.byteLength - from;
      return open > max ? -1 : open;
    }
    if (run + brk - from > max) return -1;
    run = 0;
    from = brk + 1;
  }
}
