/**
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
