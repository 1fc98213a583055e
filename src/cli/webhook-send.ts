/**
 * `svc webhook send [--source ID] [--dir DIR] [--fingerprint FP] FILE`: signs FILE with the source's
 * secret and POSTs it to the local ingest, for demos and smoke tests. Without --fingerprint the
 * fingerprint is derived from the body, so sending the same file twice shows the duplicate answer.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadAgentDir } from '../config/load-agent.js';
import { svcHome } from '../config/paths.js';
import { UsageError, errorText } from '../core/errors.js';
import { signBody } from '../ingest/signature.js';
import type { CliContext } from './context.js';

export async function webhookSendCommand(
  file: string,
  opts: { source?: string; dir?: string; fingerprint?: string },
  ctx: CliContext,
): Promise<number> {
  const loaded = loadAgentDir(resolve(ctx.cwd, opts.dir ?? '.'), { env: ctx.env, home: svcHome(ctx.env) });
  const source = opts.source ? loaded.sources.find((s) => s.id === opts.source) : loaded.sources[0];
  if (!source || (!opts.source && loaded.sources.length > 1)) {
    throw new UsageError(`svc webhook send: name a source with --source (${loaded.sources.map((s) => s.id).join(', ')})`);
  }
  let body: Buffer;
  try {
    body = readFileSync(resolve(ctx.cwd, file));
  } catch (err) {
    throw new UsageError(`svc webhook send: cannot read ${file}: ${errorText(err)}`);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let timestamp: string | undefined;
  if (source.timestampHeader) {
    timestamp = String(Math.floor(ctx.clock.now() / 1000));
    headers[source.timestampHeader] = timestamp;
  }
  headers[source.signatureHeader] = signBody(source.secret, body, timestamp);
  headers[source.fingerprintHeader] = opts.fingerprint ?? createHash('sha256').update(body).digest('hex').slice(0, 32);
  const host = source.bind === '0.0.0.0' || source.bind === '::' ? '127.0.0.1' : source.bind;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${source.port}/webhooks/${source.id}`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    ctx.stderr(`svc webhook send: ${url}: ${errorText(err)} (is \`svc up\` running?)\n`);
    return 1;
  }
  const text = await response.text();
  ctx.stdout(`POST ${url}\nHTTP ${response.status} ${text}\n`);
  return response.ok ? 0 : 1;
}
