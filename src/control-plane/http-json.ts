/** JSON answers of the control plane (contract §3.5): fixed headers, `{error}` bodies, no internals. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** Writes a JSON response; HEAD gets the same status and headers without a body. */
export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  sendJsonText(req, res, status, JSON.stringify(body), headers);
}

/** Writes JSON text built by the caller (views embed stored JSON text as it is). */
export function sendJsonText(req: IncomingMessage, res: ServerResponse, status: number, text: string, headers?: Readonly<Record<string, string>>): void {
  // The common answer (no extra headers) as one literal: no object spread on the hot path of /status.
  const length = String(Buffer.byteLength(text));
  res.writeHead(status, headers === undefined
    ? { 'content-type': JSON_HEADERS['content-type'], 'cache-control': JSON_HEADERS['cache-control'],
      'x-content-type-options': JSON_HEADERS['x-content-type-options'], 'content-length': length }
    : { ...JSON_HEADERS, 'content-length': length, ...headers });
  res.end(req.method === 'HEAD' ? undefined : text);
}

export function sendError(req: IncomingMessage, res: ServerResponse, status: number, error: string,
  extra: Record<string, string> = {}, headers: Readonly<Record<string, string>> = {}): void {
  sendJson(req, res, status, { error, ...extra }, headers);
}
