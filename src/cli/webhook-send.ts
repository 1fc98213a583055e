/**
 * `svc webhook send [--source ID] [--dir DIR] [--fingerprint FP] FILE`: signs FILE with the source's
 * secret (or, for a source without HMAC, sends its bearer token or basic credentials) and POSTs it to
 * the local ingest, for demos and smoke tests. Only that source's references are resolved (contract
 * §13). Without --fingerprint the fingerprint is derived from the body, so sending the same file
 * twice shows the duplicate answer, and says how to send it again as new.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { loadSource } from '../config/load-source.js';
import { svcHome } from '../config/paths.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from '../config/store.js';
import type { WebhookSourceConfig } from '../config/schema.js';
import { startDeadline } from '../core/deadline.js';
import { UsageError, errorText } from '../core/errors.js';
import { readBodyText } from '../core/read-body.js';
import { signBody } from '../ingest/signature.js';
import type { CliContext } from './context.js';
import { sourceUrl } from '../config/source-url.js';

/** The request's credentials: the HMAC when the source has one, else its bearer token, else basic. */
function credentials(source: WebhookSourceConfig, body: Buffer, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  if (source.secret !== undefined) {
    let timestamp: string | undefined;
    if (source.timestampHeader) {
      timestamp = String(Math.floor(nowMs / 1000));
      headers[source.timestampHeader] = timestamp;
    }
    headers[source.signatureHeader] = signBody(source.secret, body, timestamp);
  } else if (source.bearerToken !== undefined) {
    headers.authorization = `Bearer ${source.bearerToken}`;
  } else if (source.basicAuth !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${source.basicAuth.username}:${source.basicAuth.password}`).toString('base64')}`;
  }
  return headers;
}

/** The ingest answers with a short JSON object; this much is read of any answer, the rest refused. */
const MAX_ANSWER_BYTES = 64 * 1024;
const TIMEOUT_MS = 10_000;

/**
 * POST over HTTPS trusting the source's own certificate too (a self-signed one is the common case).
 * fetch cannot be given a CA without undici's own API, so node:https sends it; its answer is handed
 * to the one capped reader (core/read-body.ts) as a web Response.
 */
function postTls(url: string, headers: Record<string, string>, body: Buffer, cert: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) },
      ca: [...rootCertificates, cert], timeout: TIMEOUT_MS }, (res) => {
      const answer = new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, {
        status: res.statusCode ?? 500,
        headers: res.headers['content-length'] !== undefined ? { 'content-length': res.headers['content-length'] } : {},
      });
      readBodyText(answer, MAX_ANSWER_BYTES, () => req.destroy())
        .then((text) => done({ status: answer.status, text }), fail);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', fail);
    req.end(body);
  });
}

/** The first event's id when the ingest answered `{"status":"duplicate","eventId":…}` (docs/webhook-ingest.md), else null. */
function duplicateEventId(text: string): string | null {
  try {
    const answer = JSON.parse(text) as { status?: unknown; eventId?: unknown };
    return answer.status === 'duplicate' && typeof answer.eventId === 'string' ? answer.eventId : null;
  } catch {
    return null;
  }
}

export async function webhookSendCommand(
  file: string,
  opts: { source?: string; dir?: string; fingerprint?: string },
  ctx: CliContext,
): Promise<number> {
  const source = loadSource(resolve(ctx.cwd, opts.dir ?? '.'), opts.source, { env: ctx.env, home: svcHome(ctx.env) });
  let body: Buffer;
  try {
    body = readFileSync(resolve(ctx.cwd, file));
  } catch (err) {
    throw new UsageError(`svc webhook send: cannot read ${file}: ${errorText(err)}`);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', ...credentials(source, body, ctx.clock.now()) };
  headers[source.fingerprintHeader] = opts.fingerprint ?? createHash('sha256').update(body).digest('hex').slice(0, 32);
  const url = sourceUrl(source, { dialable: true });
  let answer: { status: number; text: string };
  try {
    if (source.tls) {
      answer = await postTls(url, headers, body, source.tls.cert);
    } else {
      const deadline = startDeadline(TIMEOUT_MS, ctx.clock);
      try {
        const response = await fetch(url, { method: 'POST', headers, body, signal: deadline.signal });
        answer = { status: response.status, text: await readBodyText(response, MAX_ANSWER_BYTES) };
      } finally {
        deadline.dispose();
      }
    }
  } catch (err) {
    ctx.stderr(`svc webhook send: ${url}: ${errorText(err)} (is \`svc up\` running?)\n`);
    return 1;
  }
  ctx.stdout(`POST ${url}\nHTTP ${answer.status} ${answer.text}\n`);
  const duplicateOf = answer.status === 200 ? duplicateEventId(answer.text) : null;
  if (duplicateOf !== null) {
    ctx.stdout(`a duplicate of event ${duplicateOf}: this fingerprint came within the last ${DEFAULT_IDEMPOTENCY_WINDOW_MS / 60_000} minutes, `
      + 'so nothing new happens; --fingerprint FP sends the file as a new alert\n');
  }
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}
