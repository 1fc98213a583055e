/**
 * The URL of a webhook source (contract §9.1, §12.3): `https` when the source serves TLS, IPv6 hosts in
 * brackets. `dialable`: a wildcard bind (`0.0.0.0`, `::`) becomes loopback, for a client on this host
 * (`svc up`'s summary, `svc webhook send`); without it the bind is shown as configured (`/status`).
 */
import { LOOPBACK } from './schema.js';
import type { WebhookSourceConfig } from './schema.js';

/** `host:port` of a listener for a URL: IPv6 in brackets; `dialable`, a wildcard bind becomes loopback (a client on this host). */
export function listenerAuthority(bind: string, port: number, dialable: boolean): string {
  const host = dialable && (bind === '0.0.0.0' || bind === '::') ? LOOPBACK : bind;
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function sourceUrl(source: Pick<WebhookSourceConfig, 'bind' | 'port' | 'id' | 'tls'>,
  opts: { port?: number; dialable?: boolean } = {}): string {
  return `${source.tls ? 'https' : 'http'}://${listenerAuthority(source.bind, opts.port ?? source.port, opts.dialable === true)}/webhooks/${source.id}`;
}
