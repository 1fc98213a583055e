/**
 * The headers of every console answer (contract §19.2), HTML or asset or error: nothing runs but the
 * console's own script, nothing is framed, nothing leaks a referrer, nothing is sniffed. HTML is never
 * cached: it shows live state and may carry a CSRF token (through `svc console`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
  + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const CONSOLE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

export const HTML_TYPE = 'text/html; charset=utf-8';

/** Writes an HTML page; HEAD gets the same status and headers without the body. */
export function sendHtml(req: IncomingMessage, res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...CONSOLE_HEADERS, 'content-type': HTML_TYPE, 'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)), ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
