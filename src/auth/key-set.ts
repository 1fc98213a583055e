/**
 * The issuer's signing keys (contract §4.4): from `jwksUri`, else found through OpenID discovery.
 *
 * Fetched here, not by jose's `createRemoteJWKSet`, so that this module owns the rules the contract
 * sets: a refetch is single-flight and at most one per cooldown (30 s) whatever the reason (unknown
 * `kid`, a cold cache, a failed attempt), the whole fetch (discovery included) is bounded by one
 * timeout (5 s), and every failure kind — network, timeout, non-200, redirect, HTML, invalid JSON,
 * invalid key set, discovery naming another issuer — becomes one error, {@link KeySetUnavailableError}
 * (→ `idp-unreachable`), raised only when no usable cached key answers the token. jose's
 * `createLocalJWKSet` does the key selection (kid, alg → kty, use, key_ops) and imports each key once.
 *
 * Nothing is fetched at construction: an unreachable IdP is not a startup error.
 */
import { createLocalJWKSet, errors } from 'jose';
import type { CryptoKey, FlattenedJWSInput, JSONWebKeySet, JWK, JWSHeaderParameters } from 'jose';
import type { Clock } from '../core/clock.js';
import { linkSignals, startDeadline } from '../core/deadline.js';
import { errorText } from '../core/errors.js';
import { BodyTooLargeError, readBodyText } from '../core/read-body.js';

export interface KeySetTiming {
  /** Bound on one whole fetch (discovery + key set), ms. */
  timeoutMs: number;
  /** Minimum time between two fetch attempts, ms. */
  cooldownMs: number;
  /** Age after which a verification also refreshes the set in the background, ms. */
  refreshAfterMs: number;
  /** Age after which cached keys are no longer used when no refresh succeeded, ms. */
  maxStaleMs: number;
}

export const KEY_SET_TIMING: Readonly<KeySetTiming> = {
  timeoutMs: 5_000,
  cooldownMs: 30_000,
  refreshAfterMs: 10 * 60_000,
  maxStaleMs: 60 * 60_000,
};

/**
 * A discovery document or key set larger than this is refused while it streams (contract §11.7): the
 * request is aborted at the first byte past it, or at once when Content-Length announces more.
 */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
const ASYMMETRIC_KTY = new Set(['RSA', 'EC', 'OKP']);
/** jose refuses RSA moduli under 2048 bits at verification time with a bare TypeError; drop them here. */
const MIN_RSA_MODULUS_BYTES = 256;

/** No key could be had for a token: the fetch failed and the cache cannot answer. */
export class KeySetUnavailableError extends Error {
  readonly code = 'EKEYSET';
  constructor(message: string) {
    super(message);
    this.name = 'KeySetUnavailableError';
  }
}

/** A jose key getter (`jwtVerify(token, getKey, …)`). */
export type KeyGetter = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

export interface KeySetStats {
  /** Fetch attempts started. */
  fetches: number;
  /** When the keys in use were fetched (clock ms), or null. */
  fetchedAtMs: number | null;
  /** Why the latest attempt failed (for the daemon's log, never for a client), or null. */
  lastError: string | null;
}

export interface KeySet {
  /**
   * The key for a token's header. Throws {@link KeySetUnavailableError} when the keys cannot be had,
   * jose's `JWKSNoMatchingKey` when the (fresh enough) set has no such key, and passes jose's
   * `JWKSMultipleMatchingKeys` through (it iterates the candidates).
   */
  getKey: KeyGetter;
  stats(): KeySetStats;
  /** Aborts a fetch in flight; later lookups fail with KeySetUnavailableError. */
  close(): void;
}

export interface KeySetOptions {
  issuer: string;
  jwksUri: string | null;
  clock: Clock;
  fetch?: typeof fetch;
  timing?: Partial<KeySetTiming>;
}

interface Cached {
  lookup: ReturnType<typeof createLocalJWKSet>;
  fetchedAtMs: number;
}

export function createKeySet(opts: KeySetOptions): KeySet {
  const timing: KeySetTiming = { ...KEY_SET_TIMING, ...opts.timing };
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const { clock } = opts;
  const closer = new AbortController();
  let current: Cached | null = null;
  /** Learned through discovery; forgotten when fetching from it fails, so the next attempt rediscovers. */
  let discovered: string | null = null;
  let lastAttemptAtMs = Number.NEGATIVE_INFINITY;
  let lastError: string | null = null;
  let inflight: Promise<void> | null = null;
  let fetches = 0;

  async function getJson(url: string, signal: AbortSignal): Promise<unknown> {
    // This request's own controller, so that a body over the cap tears down this connection only.
    const own = new AbortController();
    const linked = linkSignals(signal, own.signal);
    try {
      // redirect 'manual': a 3xx is a failure like any other non-200, as with jose's remote key sets.
      const res = await fetchFn(url, { signal: linked.signal, redirect: 'manual', headers: { accept: 'application/json' } });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => undefined);
        throw new Error(`${url} answered HTTP ${res.status}`);
      }
      let text: string;
      try {
        text = await readBodyText(res, MAX_DOCUMENT_BYTES, () => own.abort(new Error('answer over the size cap')));
      } catch (err) {
        // The reason, never the body.
        if (err instanceof BodyTooLargeError) throw new Error(`${url} answered more than 1 MiB; the request was aborted`, { cause: err });
        throw err;
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(`${url} did not answer JSON`);
      }
    } finally {
      linked.dispose();
    }
  }

  async function jwksLocation(signal: AbortSignal): Promise<string> {
    if (opts.jwksUri !== null) return opts.jwksUri;
    if (discovered !== null) return discovered;
    // OpenID Connect Discovery 1.0 §4: the issuer without its trailing slash + the well-known path.
    const url = `${opts.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = await getJson(url, signal);
    if (!isRecord(doc)) throw new Error(`${url} is not a discovery document`);
    if (doc.issuer !== opts.issuer) throw new Error(`${url} names another issuer`);
    if (typeof doc.jwks_uri !== 'string' || !isHttpUrl(doc.jwks_uri)) throw new Error(`${url} has no http(s) jwks_uri`);
    return doc.jwks_uri;
  }

  async function load(signal: AbortSignal): Promise<Cached> {
    const uri = await jwksLocation(signal);
    try {
      const lookup = createLocalJWKSet(signingKeys(await getJson(uri, signal), uri));
      if (opts.jwksUri === null) discovered = uri;
      return { lookup, fetchedAtMs: clock.now() };
    } catch (err) {
      discovered = null;
      throw err;
    }
  }

  /** Starts a fetch unless one is in flight (then joins it) or the cooldown forbids one (then resolves at once). */
  function refresh(): Promise<void> {
    if (inflight !== null) return inflight;
    const now = clock.now();
    if (closer.signal.aborted || now - lastAttemptAtMs < timing.cooldownMs) return Promise.resolve();
    lastAttemptAtMs = now;
    fetches += 1;
    const deadline = startDeadline(timing.timeoutMs, clock, closer.signal);
    inflight = load(deadline.signal)
      .then((set) => { current = set; lastError = null; }, (err: unknown) => {
        const why = deadline.why();
        lastError = why === 'timeout' ? `key set fetch aborted: no answer within ${timing.timeoutMs} ms`
          : why === 'aborted' ? `key set fetch aborted: ${errorText(closer.signal.reason)}` : errorText(err);
      })
      .finally(() => { deadline.dispose(); inflight = null; });
    return inflight;
  }

  /** The key from the cache, or null when the cache is empty, too old, or has no such key. */
  async function fromCache(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey | null> {
    const set = current;
    if (set === null) return null;
    const age = clock.now() - set.fetchedAtMs;
    if (age >= timing.maxStaleMs) return null;
    if (age >= timing.refreshAfterMs) void refresh(); // stale-while-revalidate: this request does not wait
    try {
      return await set.lookup(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey) return null;
      if (err instanceof errors.JWKSMultipleMatchingKeys) throw err;
      // A key the IdP published that cannot be imported (bad modulus, unknown curve...): the IdP's fault.
      throw new KeySetUnavailableError(`unusable key in the key set: ${errorText(err)}`);
    }
  }

  return {
    async getKey(header, token) {
      if (closer.signal.aborted) throw new KeySetUnavailableError('key set closed');
      const cached = await fromCache(header, token);
      if (cached !== null) return cached;
      await refresh();
      const fetched = await fromCache(header, token);
      if (fetched !== null) return fetched;
      const usable = current !== null && clock.now() - current.fetchedAtMs < timing.maxStaleMs;
      // The IdP could not be asked about this key: we cannot tell a rotated key from a forged one.
      if (!usable || lastError !== null) throw new KeySetUnavailableError(lastError ?? 'no key set fetched yet');
      throw new errors.JWKSNoMatchingKey();
    },
    stats: () => ({ fetches, fetchedAtMs: current?.fetchedAtMs ?? null, lastError }),
    close() {
      closer.abort(new Error('key set closed'));
    },
  };
}

/** The asymmetric signing keys of a JWK Set document; throws when there is none. */
function signingKeys(doc: unknown, uri: string): JSONWebKeySet {
  if (!isRecord(doc) || !Array.isArray(doc.keys)) throw new Error(`${uri} is not a JWK Set`);
  const keys = doc.keys.filter((k): k is JWK => isRecord(k) && typeof k.kty === 'string' && ASYMMETRIC_KTY.has(k.kty)
    && (k.use === undefined || k.use === 'sig') && k.d === undefined
    && (k.kty !== 'RSA' || (typeof k.n === 'string' && Buffer.from(k.n, 'base64url').length >= MIN_RSA_MODULUS_BYTES)));
  if (keys.length === 0) throw new Error(`${uri} holds no asymmetric signing key`);
  return { keys };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
