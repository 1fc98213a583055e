/**
 * Server-sent-events framing (WHATWG HTML, "Server-sent events"): `event:`, `id:` and `data:` fields,
 * a blank line ends a frame, lines starting with `:` are comments. Data with line breaks becomes
 * several `data:` lines (the client joins them with "\n"). The SSE event names of /logs form a closed
 * vocabulary.
 */
export const SSE_EVENTS = ['log', 'system'] as const;
export type SseEvent = (typeof SSE_EVENTS)[number];

/**
 * The `system` values of `event: system` frames on /logs:
 * - `dropped` (`count`): the client's pending buffer overflowed; that many log frames were dropped.
 * - `tailer-error` (`agent`): the agent's log file cannot be read (the cause stays in the server).
 * - `invalid-record` (`agent`, `reason`, `offset`; carries an `id:`): a line that is not a JSON object.
 * - `truncated`, `rotated` (`agent`): the log file was truncated or replaced; it is followed from byte 0.
 * - `reset` (`agent`): a Last-Event-ID position no longer matched the file; it is sent from byte 0.
 * - `token-expired`: the token that opened the stream expired; the stream ends.
 * - `caught-up`: sent once, when every requested file has been replayed (with `since` or
 *   Last-Event-ID) and the stream is live; `svc logs` without -f stops there.
 */
export const SYSTEM_MESSAGES = ['dropped', 'tailer-error', 'invalid-record', 'truncated', 'rotated', 'reset', 'token-expired', 'caught-up'] as const;
export type SystemMessage = (typeof SYSTEM_MESSAGES)[number];

/** Response headers of an event stream (specification, GET /logs). */
export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'Connection': 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

const LINE_BREAK = /\r\n|\r|\n/;

export function eventFrame(event: SseEvent, data: string, id?: string): string {
  if (id !== undefined && /[\r\n\0]/.test(id)) throw new Error('SSE id must not contain CR, LF or NUL');
  let out = `event: ${event}\n`;
  if (id !== undefined) out += `id: ${id}\n`;
  if (!LINE_BREAK.test(data)) return `${out}data: ${data}\n\n`;
  for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment frame (`: text`), ignored by clients; used for the keep-alive. */
export function commentFrame(text: string): string {
  return text.split(LINE_BREAK).map((line) => `: ${line}\n`).join('') + '\n';
}

/** `event: system` with a JSON object carrying `system` and further fields. */
export function systemFrame(body: { system: SystemMessage } & Record<string, unknown>, id?: string): string {
  return eventFrame('system', JSON.stringify(body), id);
}

export const KEEP_ALIVE_FRAME = commentFrame('keep-alive');
