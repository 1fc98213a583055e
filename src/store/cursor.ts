/**
 * Opaque keyset cursors (contract §5): base64url of `{"v":1,"k":<last seq>,"o":"asc"|"desc"}`.
 * Clients must treat them as opaque; the version lets the format change without misreading old ones.
 */
import type { Order } from './store.js';

const CURSOR_VERSION = 1;
/** A valid cursor is ~40 characters; anything much longer is not ours. */
const MAX_CURSOR_LENGTH = 200;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface CursorValue {
  key: number;
  order: Order;
}

export type DecodedCursor = ({ ok: true } & CursorValue) | { ok: false };

/**
 * A `cursor` that does not decode or belongs to the other order. Any store throws it; the HTTP
 * layer answers 400 `invalid cursor: <message>`, so the message is fixed text, never input.
 */
export class InvalidCursorError extends Error {
  readonly code = 'EINVALID_CURSOR';
  readonly param = 'cursor';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidCursorError';
  }
}

export function encodeCursor(value: CursorValue): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, k: value.key, o: value.order }), 'utf8').toString('base64url');
}

export function decodeCursor(s: string): DecodedCursor {
  if (s.length === 0 || s.length > MAX_CURSOR_LENGTH || !BASE64URL.test(s)) return { ok: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    return { ok: false };
  }
  if (typeof parsed !== 'object' || parsed === null) return { ok: false };
  const { v, k, o } = parsed as Record<string, unknown>;
  if (v !== CURSOR_VERSION) return { ok: false };
  if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0) return { ok: false };
  if (o !== 'asc' && o !== 'desc') return { ok: false };
  return { ok: true, key: k, order: o };
}
