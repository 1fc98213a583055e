/**
 * `svc webhook send [--source ID] [--dir DIR] [--fingerprint FP] FILE`: signs FILE with the source's
 * secret (or, for a source without HMAC, sends its bearer token or basic credentials) and POSTs it to
 * the local ingest, for demos and smoke tests. Only that source's references are resolved (contract
 * §13). Without --fingerprint the fingerprint is derived from the body, so sending the same file
 * twice shows the duplicate answer.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { resolve } from 'node:path';
import { loadSource } from '../config/load-source.js';
import { svcHome } from '../config/paths.js';
import type { WebhookSourceConfig } from '../config/schema.js';
import { UsageError, errorText } from '../core/errors.js';
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

/** POST over HTTPS trusting the source's own certificate too (a self-signed one is the common case). */
function postTls(url: string, headers: Record<string, string>, body: Buffer, cert: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) },
      ca: [...rootCertificates, cert], timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', fail);
    req.end(body);
  });
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
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      answer = { status: response.status, text: await response.text() };
    }
  } catch (err) {
    ctx.stderr(`svc webhook send: ${url}: ${errorText(err)} (is \`svc up\` running?)\n`);
    return 1;
  }
  ctx.stdout(`POST ${url}\nHTTP ${answer.status} ${answer.text}\n`);
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}
