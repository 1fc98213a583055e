/**
 * OAuth 2.0 client-credentials grant (RFC 6749 §4.4) for the client side of the control plane
 * (contract §4.7): `svc ps`, `svc logs`, … and later `svc fleet` obtain their bearer tokens here.
 *
 * - Client authentication is `client_secret_basic`: HTTP Basic over the form-urlencoded id and
 *   secret (RFC 6749 §2.3.1), which is what servers decode (`+` and `%XX`).
 * - The audience goes out as `audience` (Auth0 and others) and, when it is an absolute URI, also as
 *   `resource` (RFC 8707, oidc-provider and other resource-indicator servers). RFC 6749 §3.2 makes
 *   servers ignore parameters they do not know, so sending both is safe.
 * - The token is cached until shortly before it expires; concurrent callers share one request.
 * - Error messages name the token endpoint (without credentials or query) and the OAuth `error`
 *   code, never the client secret or a token.
 * - One deadline on the injected clock bounds the whole request, answer included; the answer is read
 *   with a cap that holds while it streams (256 KiB): past it the request is aborted.
 */
import type { Clock } from '../core/clock.js';
import { linkSignals, startDeadline } from '../core/deadline.js';
import { RuntimeError, errorText } from '../core/errors.js';
import { networkFailure } from '../core/net-errors.js';
import { BodyTooLargeError, readBodyText } from '../core/read-body.js';

export interface ClientCredentialsOptions {
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  /** Sent space-separated as `scope`; omitted when empty. */
  scopes?: string[];
  /** The resource server's identifier: sent as `audience`, and as `resource` (RFC 8707) when it is an absolute URI. */
  audience?: string;
  clock: Clock;
  fetch?: typeof fetch;
  /** Per token request. Default 5000 ms. */
  timeoutMs?: number;
}

export interface ClientCredentialsClient {
  /** A valid access token: the cached one, or a fresh one from the token endpoint. Rejects with a RuntimeError. */
  token(): Promise<string>;
  /** Drops the cached token (e.g. after the resource server answered `expired`); the next token() fetches anew. */
  invalidate(): void;
}

/** Refresh this long before expiry at most … */
const MAX_EARLY_MS = 60_000;
/** … or this fraction of the lifetime, whichever is smaller (a 60 s token is refreshed after 54 s). */
const EARLY_FRACTION = 0.1;
const DEFAULT_TIMEOUT_MS = 5_000;
/** A token endpoint answer is a small JSON object; anything bigger is not one, and is not read past this. */
export const MAX_RESPONSE_BYTES = 256 * 1024;
/** RFC 6749 §5.2 `error` codes are printable ASCII without `"` and `\`; anything else is not echoed. */
const OAUTH_ERROR_CODE = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,64}$/;
/** What may go into an Authorization header value (RFC 9110 field-value, visible ASCII). */
const HEADER_SAFE = /^[\x21-\x7E]+$/;

interface Cached {
  token: string;
  /** Serve the cached token until this instant (ms since epoch). */
  refreshAtMs: number;
}

export function createClientCredentialsClient(opts: ClientCredentialsOptions): ClientCredentialsClient {
  const endpoint = describeEndpoint(opts.tokenEndpoint);
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const basic = Buffer.from(`${formEncode(opts.clientId)}:${formEncode(opts.clientSecret)}`).toString('base64');
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const scopes = opts.scopes ?? [];
  if (scopes.length > 0) form.set('scope', scopes.join(' '));
  if (opts.audience !== undefined && opts.audience !== '') {
    form.set('audience', opts.audience);
    if (isAbsoluteUri(opts.audience)) form.set('resource', opts.audience);
  }
  const body = form.toString();

  let cached: Cached | null = null;
  let inflight: Promise<string> | null = null;
  /** Bumped by invalidate(): a request started before it must not refill the cache. */
  let generation = 0;

  /** Never quotes the secret, even if a server echoes it back in its description. */
  const scrub = (text: string): string => (opts.clientSecret.length >= 4 ? text.split(opts.clientSecret).join('[redacted]') : text);

  const request = async (): Promise<Cached> => {
    if (endpoint === null) throw new RuntimeError('ETOKEN', 'the token endpoint is not an http(s) URL', 'token endpoint: not an http(s) URL');
    const startedAt = opts.clock.now(); // lifetimes count from before the request, to err on the early side
    // One deadline for the request and its answer, on the injected clock (never AbortSignal.timeout).
    const deadline = startDeadline(timeoutMs, opts.clock);
    // Its own controller too: an answer over the cap tears this request's connection down.
    const own = new AbortController();
    const linked = linkSignals(deadline.signal, own.signal);
    const timedOut = (): RuntimeError =>
      new RuntimeError('ETOKEN', `token endpoint ${endpoint} did not answer within ${timeoutMs} ms`, 'token endpoint: timeout');
    let res: Response;
    let text: string;
    try {
      try {
        res = await doFetch(opts.tokenEndpoint, {
          method: 'POST',
          headers: {
            authorization: `Basic ${basic}`,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body,
          redirect: 'error', // a redirect would resend the credentials somewhere else
          signal: linked.signal,
        });
      } catch (err) {
        if (deadline.why() === 'timeout') throw timedOut();
        throw new RuntimeError('ETOKEN', `cannot reach token endpoint ${endpoint}: ${scrub(causeOf(err))}`, `token endpoint: ${networkFailure(err)}`);
      }
      try {
        text = await readBodyText(res, MAX_RESPONSE_BYTES, () => own.abort());
      } catch (err) {
        if (deadline.why() === 'timeout') throw timedOut();
        if (err instanceof BodyTooLargeError) {
          throw new RuntimeError('ETOKEN', `token endpoint ${endpoint}: the answer is over ${MAX_RESPONSE_BYTES / 1024} KiB; the request was aborted`,
            'token endpoint: answer too large');
        }
        throw new RuntimeError('ETOKEN', `token endpoint ${endpoint}: reading the answer failed: ${scrub(causeOf(err))}`, 'token endpoint: answer cut short');
      }
    } finally {
      linked.dispose();
      deadline.dispose();
    }
    let json: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
    } catch { /* reported below */ }
    if (!res.ok) {
      const code = typeof json?.error === 'string' && OAUTH_ERROR_CODE.test(json.error) ? json.error : null;
      const description = typeof json?.error_description === 'string' ? printable(scrub(json.error_description)) : '';
      throw new RuntimeError('ETOKEN', `token endpoint ${endpoint} refused the client-credentials grant: ` +
        `${code ?? 'no OAuth error code'} (HTTP ${res.status})${description ? `: ${description}` : ''}`,
      `token endpoint: HTTP ${res.status}${code !== null ? ` (${code})` : ''}`);
    }
    if (json === null) throw new RuntimeError('ETOKEN', `token endpoint ${endpoint}: HTTP ${res.status} answer is not a JSON object`, 'token endpoint: not JSON');
    const token = json.access_token;
    if (typeof token !== 'string' || !HEADER_SAFE.test(token)) {
      throw new RuntimeError('ETOKEN', `token endpoint ${endpoint}: the answer has no usable access_token`, 'token endpoint: no usable access_token');
    }
    // RFC 6749 §7.1: only a Bearer token can be sent as `Authorization: Bearer` (not DPoP, N_A, …).
    // A missing token_type (some servers omit the required field) is taken as Bearer.
    if (json.token_type !== undefined && (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer')) {
      const shown = typeof json.token_type === 'string' && OAUTH_ERROR_CODE.test(json.token_type) ? `"${json.token_type}"` : 'none';
      throw new RuntimeError('ETOKEN', `token endpoint ${endpoint}: token_type ${shown} is not Bearer`, 'token endpoint: token_type is not Bearer');
    }
    return { token, refreshAtMs: refreshAt(startedAt, await lifetimeMs(json.expires_in, token, startedAt)) };
  };

  return {
    token(): Promise<string> {
      if (cached !== null && opts.clock.now() < cached.refreshAtMs) return Promise.resolve(cached.token);
      if (inflight !== null) return inflight;
      const mine = generation;
      const p = request().then(
        (fresh) => {
          if (mine === generation) {
            cached = fresh;
            inflight = null;
          }
          return fresh.token;
        },
        (err: unknown) => {
          if (mine === generation) inflight = null;
          throw err;
        },
      );
      inflight = p;
      return p;
    },
    invalidate(): void {
      generation++;
      cached = null;
      inflight = null;
    },
  };
}

/**
 * How long the token lives (ms): `expires_in` (RFC 6749 §5.1, seconds; some servers send a numeric
 * string), else the JWT's own `exp` when the token is one, else 0 (used once, never cached).
 */
async function lifetimeMs(expiresIn: unknown, token: string, nowMs: number): Promise<number> {
  const seconds = typeof expiresIn === 'number' ? expiresIn
    : typeof expiresIn === 'string' && /^\d{1,10}$/.test(expiresIn) ? Number(expiresIn) : NaN;
  if (Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  try {
    // Loaded on use: every CLI command imports this module, few tokens lack expires_in.
    const { decodeJwt } = await import('jose');
    const { exp } = decodeJwt(token); // read for timing only; the resource server verifies it
    if (typeof exp === 'number') return Math.max(0, exp * 1000 - nowMs);
  } catch { /* not a JWT */ }
  return 0;
}

function refreshAt(startedAt: number, lifetime: number): number {
  return startedAt + lifetime - Math.min(MAX_EARLY_MS, lifetime * EARLY_FRACTION);
}

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks for the Basic credentials. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** RFC 8707 §2: `resource` must be an absolute URI (a scheme, no fragment). */
function isAbsoluteUri(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) || value.includes('#')) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** The endpoint as shown in messages: no userinfo, no query (either could carry a credential); null when not http(s). */
function describeEndpoint(raw: string): string | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? `${url.origin}${url.pathname}` : null;
  } catch {
    return null;
  }
}

function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7E]/g, ' ').trim();
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, a bad port, …) is in its cause. */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return printable(cause.message);
  return errorText(err);
}
