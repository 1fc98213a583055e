/**
 * The one home for reading a request's body on the servers svc runs (the Slack and Twilio sources,
 * the consoles' forms): bounded while it streams, so a client that sends more than the answer needs
 * costs at most `maxBytes` of memory, never the whole of what it sends.
 */
import type { IncomingMessage } from 'node:http';

/** A request's body as UTF-8 text, or null (the rest unread) once it passes `maxBytes`. */
export async function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An HTML form's fields (application/x-www-form-urlencoded); null for another type or a body over `maxBytes`. */
export async function readRequestForm(req: IncomingMessage, maxBytes: number): Promise<URLSearchParams | null> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return null;
  const body = await readRequestBody(req, maxBytes);
  return body === null ? null : new URLSearchParams(body);
}
