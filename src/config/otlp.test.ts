import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../core/errors.js';
import { OTLP_DEFAULTS, otlpSettingsFromEnv } from './otlp.js';

const ENDPOINT = 'http://collector:4318';

function rejects(env: NodeJS.ProcessEnv, variable: string, secret?: string): void {
  assert.throws(() => otlpSettingsFromEnv(env), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.ok(err.message.startsWith(`${variable}:`), err.message);
    if (secret) assert.ok(!err.message.includes(secret), `message leaks ${secret}: ${err.message}`);
    return true;
  });
}

describe('otlpSettingsFromEnv', () => {
  it('is off without an endpoint, with an empty one, and with OTEL_SDK_DISABLED=true', () => {
    assert.equal(otlpSettingsFromEnv({}), null);
    assert.equal(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), null);
    assert.equal(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), null);
    assert.equal(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }), null);
    // Other variables alone do not turn export on.
    assert.equal(otlpSettingsFromEnv({ OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' }), null);
  });

  it('appends /v1/metrics to the endpoint, trailing slashes trimmed, with the spec defaults', () => {
    const table: Array<[string, string]> = [
      [ENDPOINT, 'http://collector:4318/v1/metrics'],
      [`${ENDPOINT}/`, 'http://collector:4318/v1/metrics'],
      ['https://otlp.example.com/base//', 'https://otlp.example.com/base/v1/metrics'],
      ['https://otlp.example.com/base?tenant=a', 'https://otlp.example.com/base/v1/metrics?tenant=a'],
    ];
    for (const [endpoint, url] of table) {
      assert.deepEqual(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
        { url, headers: {}, intervalMs: OTLP_DEFAULTS.intervalMs, timeoutMs: OTLP_DEFAULTS.timeoutMs }, endpoint);
    }
  });

  it('uses OTEL_EXPORTER_OTLP_METRICS_ENDPOINT as-is, with or without the base endpoint', () => {
    const url = 'https://metrics.example.com/custom/path';
    assert.equal(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: url })?.url, url);
    assert.equal(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: url })?.url, url);
  });

  it('rejects endpoints that are not http(s) URLs without echoing them', () => {
    rejects({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', 'collector');
    rejects({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url s3cr3t' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', 's3cr3t');
    rejects({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:s3cr3t@host/' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', 's3cr3t');
    rejects({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'grpc://user:s3cr3t@h' }, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 's3cr3t');
  });

  it('keeps credentials in the URL (sent as Basic auth) but never in errors', () => {
    assert.equal(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://u:p%40ss@otlp.example.com' })?.url,
      'https://u:p%40ss@otlp.example.com/v1/metrics');
  });

  it('reads the interval and timeout; the default timeout is clamped to a shorter interval', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT };
    const at = (env: NodeJS.ProcessEnv) => {
      const s = otlpSettingsFromEnv({ ...base, ...env });
      return s && [s.intervalMs, s.timeoutMs];
    };
    assert.deepEqual(at({ OTEL_METRIC_EXPORT_INTERVAL: '10000' }), [10_000, 10_000]);
    assert.deepEqual(at({ OTEL_METRIC_EXPORT_INTERVAL: '120000' }), [120_000, 30_000]);
    assert.deepEqual(at({ OTEL_METRIC_EXPORT_INTERVAL: '5000', OTEL_METRIC_EXPORT_TIMEOUT: '2000' }), [5000, 2000]);
    assert.deepEqual(at({ OTEL_METRIC_EXPORT_TIMEOUT: '60000' }), [60_000, 60_000]);
    assert.deepEqual(at({ OTEL_METRIC_EXPORT_INTERVAL: '', OTEL_METRIC_EXPORT_TIMEOUT: '' }), [60_000, 30_000]);
  });

  it('rejects intervals and timeouts that are not positive integers, and a timeout above the interval', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT };
    for (const bad of ['0', '-5', '1.5', '1e3', 'abc', '10s', '99999999999999999999']) {
      rejects({ ...base, OTEL_METRIC_EXPORT_INTERVAL: bad }, 'OTEL_METRIC_EXPORT_INTERVAL');
      rejects({ ...base, OTEL_METRIC_EXPORT_TIMEOUT: bad }, 'OTEL_METRIC_EXPORT_TIMEOUT');
    }
    rejects({ ...base, OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_METRIC_EXPORT_TIMEOUT: '1001' }, 'OTEL_METRIC_EXPORT_TIMEOUT');
  });

  it('parses headers: key=value pairs, URL-decoded values, metrics-specific ones taking precedence', () => {
    const s = otlpSettingsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_EXPORTER_OTLP_HEADERS: ' Authorization = Bearer%20abc%3D%3D , x-tenant=a,,x-empty=, x-eq=a=b,',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-tenant=metrics',
    });
    assert.deepEqual(s?.headers, { Authorization: 'Bearer abc==', 'x-tenant': 'metrics', 'x-empty': '', 'x-eq': 'a=b' });
  });

  it('rejects malformed headers naming the entry or key, never the value', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT };
    rejects({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'a=1,s3cr3t' }, 'OTEL_EXPORTER_OTLP_HEADERS', 's3cr3t');
    rejects({ ...base, OTEL_EXPORTER_OTLP_HEADERS: '=s3cr3t' }, 'OTEL_EXPORTER_OTLP_HEADERS', 's3cr3t');
    rejects({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'bad name=s3cr3t' }, 'OTEL_EXPORTER_OTLP_HEADERS', 's3cr3t');
    rejects({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s3cr3t%E0%A4%A' }, 'OTEL_EXPORTER_OTLP_HEADERS', 's3cr3t');
    rejects({ ...base, OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'api-key=s3cr3t%0D%0AX-Injected:1' }, 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', 's3cr3t');
  });

  it('accepts the OTLP/HTTP protocols and refuses grpc, metrics-specific first', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT };
    assert.ok(otlpSettingsFromEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }));
    assert.ok(otlpSettingsFromEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' }));
    rejects({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
    rejects({ ...base, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'thrift' }, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL');
  });
});
