/**
 * Why a fetch failed, in a few words. fetch (undici) says only "fetch failed"; the reason is the
 * `code` of its cause (ECONNREFUSED, UND_ERR_SOCKET, …). Used in the short per-host reasons of
 * `svc fleet` and in the token client's messages; never carries a URL, header or body.
 */

const WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate name mismatch',
};

/** A code-like token is shown as it is; anything else (free text) is not echoed. */
const CODE = /^[A-Z][A-Z0-9_]{1,40}$/;

/** `connection refused`, `connection reset`, `timeout`, … or the error code itself, or `network error`. */
export function networkFailure(err: unknown): string {
  let cur: unknown = err;
  // The code sits on the cause (fetch), sometimes one level deeper (an AggregateError of addresses).
  for (let depth = 0; depth < 4 && cur !== null && typeof cur === 'object'; depth++) {
    const { code, name } = cur as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code !== '') return WORDS[code] ?? (CODE.test(code) ? code : 'network error');
    if (name === 'TimeoutError') return 'timeout';
    const errors = (cur as { errors?: unknown }).errors;
    cur = (cur as { cause?: unknown }).cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return 'network error';
}
