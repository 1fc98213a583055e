/**
 * Host check (spec "Remote Host header check", contract §3.4): which requests count as addressed to
 * loopback. Pure; the listener turns the answer into 400/403.
 */
export type HostClass = 'loopback' | 'remote' | 'ambiguous';

/** `127.0.0.1`, `localhost` or `[::1]`, each with an optional port — nothing else. */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;

/**
 * Classifies the Host header values of one request (from `req.rawHeaders`, since Node keeps only the
 * first Host in `req.headers`). Two or more Host headers are ambiguous. A missing or empty Host, and
 * look-alikes such as `localhost.evil.com` or `localhost@evil.com`, are remote.
 */
export function classifyHost(values: readonly string[]): HostClass {
  if (values.length > 1) return 'ambiguous';
  const host = values[0]?.trim() ?? '';
  if (!LOOPBACK_HOST.test(host)) return 'remote';
  const port = host.match(/:(\d+)$/)?.[1];
  if (port !== undefined && Number(port) > 65535) return 'remote';
  return 'loopback';
}

/** The Host values of a request, in order, from Node's flat rawHeaders list. */
export function hostValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'host') values.push(rawHeaders[i + 1] as string);
  }
  return values;
}

