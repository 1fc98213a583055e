/** Picks the SIEM transport of an exporter's `type`. */
import type { AuditExporterConfig } from '../config/schema.js';
import { createHttpTransport } from './http-transport.js';
import { createSyslogTransport } from './syslog-transport.js';
import type { AuditTransport, TransportDeps } from './transport.js';

export function createTransport(config: AuditExporterConfig, deps: TransportDeps): AuditTransport {
  return config.type === 'http' ? createHttpTransport(config, deps) : createSyslogTransport(config, deps);
}
