/**
 * Canonical JSON (RFC 8785, JCS): one text per value whatever its key order, so a hash of the text is
 * a hash of the value. The audit chain hashes rows with it; ingest derives idempotency keys with it.
 */
import canonicalizeModule from 'canonicalize';

// `canonicalize` is CommonJS (`module.exports = fn`) but its typings declare `export default fn`;
// under NodeNext the default import is `module.exports`, i.e. the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/**
 * RFC 8785 JSON. Throws on values JSON cannot carry (NaN, Infinity, a top-level undefined):
 * hashing something that would not survive storage is a bug.
 */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError('value has no JSON representation');
  return out;
}
