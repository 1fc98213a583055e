/**
 * Webhook signatures (contract §9.2), pure functions: HMAC-SHA-256 of the raw body with the source's
 * secret, sent as `sha256=<hex>` or bare `<hex>`. With a timestamp header configured the signed string
 * is `<ts>.<body>` and the timestamp must lie within ±300 s of now.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Default tolerance of a signed timestamp, seconds either way. */
export const TIMESTAMP_TOLERANCE_S = 300;

const SIGNATURE = /^(?:sha256=)?([0-9a-f]{64})$/i;
/** Unix seconds as a plain decimal integer; 12 digits reach far past year 30000. */
const UNIX_SECONDS = /^[0-9]{1,12}$/;

/**
 * The 32 digest bytes of a signature header, or null when the header is missing or not exactly
 * `sha256=<64 hex>` / `<64 hex>` (hex and prefix case-insensitive).
 */
export function parseSignature(header: string | undefined): Buffer | null {
  if (header === undefined) return null;
  const match = SIGNATURE.exec(header);
  return match?.[1] === undefined ? null : Buffer.from(match[1], 'hex');
}

function digest(secret: string, body: Buffer | string, timestamp: string | undefined): Buffer {
  const hmac = createHmac('sha256', secret);
  if (timestamp !== undefined) hmac.update(`${timestamp}.`);
  hmac.update(body);
  return hmac.digest();
}

/** `sha256=<hex>` over the body, or over `<timestamp>.<body>` when a timestamp is given. */
export function signBody(secret: string, body: Buffer | string, timestamp?: string): string {
  return `sha256=${digest(secret, body, timestamp).toString('hex')}`;
}

/**
 * True when `header` is a well-formed signature of the body (or of `<timestamp>.<body>`) under
 * `secret`. Compared in constant time; a missing, malformed or wrong-length header is false.
 */
export function verifySignature(opts: {
  secret: string;
  body: Buffer;
  header: string | undefined;
  timestamp?: string;
}): boolean {
  const given = parseSignature(opts.header);
  if (given === null) return false;
  const expected = digest(opts.secret, opts.body, opts.timestamp);
  // parseSignature only returns 32-byte buffers, the length of a SHA-256 digest; checked anyway so
  // timingSafeEqual can never throw.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type TimestampCheck = 'ok' | 'missing' | 'malformed' | 'out-of-window';

/**
 * Checks a signed timestamp header: unix seconds as a decimal integer string, within
 * `toleranceS` seconds of `nowMs` either way.
 */
export function checkTimestamp(
  ts: string | undefined,
  nowMs: number,
  toleranceS: number = TIMESTAMP_TOLERANCE_S,
): TimestampCheck {
  if (ts === undefined || ts === '') return 'missing';
  if (!UNIX_SECONDS.test(ts)) return 'malformed';
  return Math.abs(Number(ts) * 1000 - nowMs) <= toleranceS * 1000 ? 'ok' : 'out-of-window';
}
