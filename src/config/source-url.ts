/**
 * The URL of a webhook source (contract §9.1, §12.3): `https` when the source serves TLS, IPv6 hosts in
 * brackets. `dialable`: a wildcard bind (`0.0.0.0`, `::`) becomes loopback, for a client on this host
 * (`svc up`'s summary, `svc webhook send`); without it the bind is shown as configured (`/status`).
 */
import { LOOPBACK } from './schema.js';
import type { WebhookSourceConfig } from './schema.js';

export function sourceUrl(source: Pick<WebhookSourceConfig, 'bind' | 'port' | 'id' | 'tls'>,
  opts: { port?: number; dialable?: boolean } = {}): string {
  const host = opts.dialable && (source.bind === '0.0.0.0' || source.bind === '::') ? LOOPBACK : source.bind;
  return `${source.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${opts.port ?? source.port}/webhooks/${source.id}`;
}
