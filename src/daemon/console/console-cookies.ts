/**
 * Secrets in cookies and forms, as both consoles compare them (`svc console`'s proxy, the team
 * console): constant-time comparison, and the values of one cookie name in a Cookie header.
 */
import { timingSafeEqual } from 'node:crypto';

/** Constant-time comparison of two strings (different lengths are simply unequal). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Every value the Cookie header gives `name` (a browser may send one name twice, from two paths); at most 8. */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined || header.length > 8192) return [];
  const out: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    out.push(part.slice(eq + 1).trim());
    if (out.length === 8) break;
  }
  return out;
}
