/**
 * OTLP/HTTP metrics export settings from the standard OpenTelemetry environment variables
 * (OTel specification, "OpenTelemetry Protocol Exporter" and "Environment Variable Specification").
 * Export is on when an endpoint is set; an invalid value is a configuration error, never a silent
 * default. Messages name the variable but never echo its value: endpoints may carry credentials in
 * their userinfo and headers usually carry an API key.
 */
import { ConfigError } from '../core/errors.js';

/** Defaults of the OTel specification, in milliseconds. */
export const OTLP_DEFAULTS = { intervalMs: 60_000, timeoutMs: 30_000 } as const;

export interface OtlpSettings {
  /** Full URL the metrics are POSTed to, e.g. `http://collector:4318/v1/metrics`. May hold userinfo. */
  url: string;
  /** Extra request headers (OTEL_EXPORTER_OTLP_HEADERS, then OTEL_EXPORTER_OTLP_METRICS_HEADERS). */
  headers: Record<string, string>;
  /** OTEL_METRIC_EXPORT_INTERVAL: time between two exports, ms. */
  intervalMs: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT: bound on one collect + export, ms; never above intervalMs. */
  timeoutMs: number;
}

// RFC 9110 §5.6.2 token: what Node accepts as a header name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Control characters other than HTAB are refused by Node in header values (ERR_INVALID_CHAR).
// eslint-disable-next-line no-control-regex
const HEADER_VALUE_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * The OTLP metrics settings, or null when export is off: neither `OTEL_EXPORTER_OTLP_ENDPOINT` nor
 * `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` is set (empty counts as unset, per the spec), or
 * `OTEL_SDK_DISABLED=true`. Throws ConfigError on an invalid value.
 */
export function otlpSettingsFromEnv(env: NodeJS.ProcessEnv): OtlpSettings | null {
  const base = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const specific = read(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  if (base === undefined && specific === undefined) return null;
  if (read(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;

  checkProtocol(env);
  // The per-signal variable is used as-is; the base one gets the signal path appended (spec).
  // Both are validated when both are set: a typo in the unused one is still a typo.
  const baseUrl = base === undefined ? undefined : httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base);
  const specificUrl = specific === undefined ? undefined : httpUrl('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', specific);
  const url = specificUrl ? specificUrl.href : withSignalPath(baseUrl as URL);

  const intervalMs = positiveInt(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? OTLP_DEFAULTS.intervalMs;
  const explicitTimeout = positiveInt(env, 'OTEL_METRIC_EXPORT_TIMEOUT');
  // Same rule as the SDK's PeriodicExportingMetricReader: an explicit timeout above the interval is
  // an error; the default timeout is clamped to a shorter interval (e.g. 10 s interval → 10 s timeout).
  if (explicitTimeout !== undefined && explicitTimeout > intervalMs) {
    throw new ConfigError(`OTEL_METRIC_EXPORT_TIMEOUT: ${explicitTimeout} ms exceeds OTEL_METRIC_EXPORT_INTERVAL (${intervalMs} ms); an export must end before the next one starts`);
  }
  const timeoutMs = explicitTimeout ?? Math.min(OTLP_DEFAULTS.timeoutMs, intervalMs);

  const headers = {
    ...parseHeaders('OTEL_EXPORTER_OTLP_HEADERS', read(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
    ...parseHeaders('OTEL_EXPORTER_OTLP_METRICS_HEADERS', read(env, 'OTEL_EXPORTER_OTLP_METRICS_HEADERS')),
  };
  return { url, headers, intervalMs, timeoutMs };
}

/** A set, non-blank variable, trimmed; the spec treats empty values as unset. */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function httpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}: not a valid URL (expected http://host:port or https://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // The scheme is not echoed either: `user:pass@host` without one parses as scheme `user:`.
    throw new ConfigError(`${name}: not an http(s) URL (expected http://host:port or https://host:port; svc exports OTLP over HTTP)`);
  }
  return url;
}

/** `<endpoint>/v1/metrics`, trailing slashes of the base path dropped, any query kept. */
function withSignalPath(url: URL): string {
  const out = new URL(url.href);
  out.pathname = `${out.pathname.replace(/\/+$/, '')}/v1/metrics`;
  return out.href;
}

/** svc sends http/json; http/protobuf is accepted because OTLP/HTTP receivers take both encodings. */
function checkProtocol(env: NodeJS.ProcessEnv): void {
  for (const name of ['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = read(env, name);
    if (value === undefined) continue;
    if (value === 'http/json' || value === 'http/protobuf') return;
    throw new ConfigError(`${name}: ${JSON.stringify(value.slice(0, 32))} is not supported (svc exports metrics over OTLP/HTTP: use http/json or http/protobuf, and the receiver's HTTP port, usually 4318)`);
  }
}

function positiveInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(`${name}: invalid value ${JSON.stringify(raw.slice(0, 32))} (expected a positive integer number of milliseconds)`);
  }
  return value;
}

/**
 * `key=value,key2=value2` with URL-encoded values (W3C Baggage format without metadata, as the spec
 * says). Entries are identified by position, and keys by name, in errors; values never appear.
 */
function parseHeaders(name: string, raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw === undefined) return headers;
  raw.split(',').forEach((entry, index) => {
    if (entry.trim() === '') return; // tolerate `a=1,` and `a=1,,b=2`
    const eq = entry.indexOf('=');
    const key = eq === -1 ? '' : entry.slice(0, eq).trim();
    if (eq === -1 || !HEADER_NAME.test(key)) {
      throw new ConfigError(`${name}: entry ${index + 1} is not key=value with a valid header name`);
    }
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(`${name}: the value of ${key} is not valid URL encoding`);
    }
    if (HEADER_VALUE_FORBIDDEN.test(value)) {
      throw new ConfigError(`${name}: the value of ${key} contains control characters`);
    }
    headers[key] = value;
  });
  return headers;
}
