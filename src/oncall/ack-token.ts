/**
 * One-time acknowledgement links (contract §18.6): a token names the agent, the page, the person, the
 * action, its expiry and the page's incarnation (which opening of the page it was minted for: a page
 * resolved and reopened is the same page, and a link from before must not act on it), and carries an
 * HMAC-SHA256 over all of them under the ack source's secret. Pure: the caller passes the time and the
 * key; "used once" is the page's audit timeline (the store).
 * Form: `v2.<base64url JSON claims>.<base64url MAC>`. `v1` tokens (minted before incarnations, for a
 * page's first opening) are still read, as incarnation 0, until they expire.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const ACK_TOKEN_VERSION = 'v2';
const V1 = 'v1';
/** How long a link stays valid (§18.6): 24 h, or less when the page resolves first. */
export const ACK_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than any token svc mints; refused before any parsing. */
const MAX_TOKEN_CHARS = 1_024;

export type LinkAction = 'ack' | 'resolve';

export interface AckClaims {
  agentId: string;
  pageId: string;
  person: string;
  action: LinkAction;
  expiresAtMs: number;
  /** The page's incarnation when the link was minted (oncall/page.ts incarnationOf). */
  incarnation: number;
}

/**
 * `expired` still carries the claims: its MAC held, so they are svc's own (who tried, on what page),
 * which a refusal's audit row may name; a `malformed` or `forged` token names nothing to trust.
 */
export type TokenCheck =
  | { ok: true; claims: AckClaims; tokenId: string }
  | { ok: false; reason: 'expired'; claims: AckClaims; tokenId: string }
  | { ok: false; reason: 'malformed' | 'forged' };

const mac = (key: string, version: string, body: string): Buffer => createHmac('sha256', key).update(`${version}.${body}`).digest();

export function mintAckToken(claims: AckClaims, key: string): string {
  const body = Buffer.from(JSON.stringify([claims.agentId, claims.pageId, claims.person, claims.action, claims.expiresAtMs, claims.incarnation]))
    .toString('base64url');
  return `${ACK_TOKEN_VERSION}.${body}.${mac(key, ACK_TOKEN_VERSION, body).toString('base64url')}`;
}

/** A short, stable id of a token (what the audit row records as the actor): never the token itself. */
export function ackTokenId(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}

export function checkAckToken(token: string, key: string, nowMs: number): TokenCheck {
  if (token.length > MAX_TOKEN_CHARS) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  const version = parts[0];
  if (parts.length !== 3 || (version !== ACK_TOKEN_VERSION && version !== V1)) return { ok: false, reason: 'malformed' };
  const [, body = '', given = ''] = parts;
  if (!/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(given)) return { ok: false, reason: 'malformed' };
  // The MAC is compared as text, in its one canonical encoding: base64url's last character carries
  // two unused bits, so a decoded comparison would accept four spellings of one token, each with
  // another token id — and a used link could act again under another spelling.
  const expected = Buffer.from(mac(key, version, body).toString('base64url'));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { ok: false, reason: 'forged' };
  const claims = parseClaims(Buffer.from(body, 'base64url').toString('utf8'), version === V1 ? 5 : 6);
  if (claims === null) return { ok: false, reason: 'malformed' };
  const tokenId = ackTokenId(token);
  if (nowMs >= claims.expiresAtMs) return { ok: false, reason: 'expired', claims, tokenId };
  return { ok: true, claims, tokenId };
}

function parseClaims(text: string, fields: 5 | 6): AckClaims | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== fields) return null;
  const [agentId, pageId, person, action, expiresAtMs, incarnation = 0] = value as unknown[];
  if (typeof agentId !== 'string' || typeof pageId !== 'string' || typeof person !== 'string') return null;
  if ((action !== 'ack' && action !== 'resolve') || typeof expiresAtMs !== 'number' || !Number.isSafeInteger(expiresAtMs)) return null;
  if (typeof incarnation !== 'number' || !Number.isSafeInteger(incarnation) || incarnation < 0) return null;
  return { agentId, pageId, person, action, expiresAtMs, incarnation };
}
