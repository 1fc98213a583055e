/**
 * Pushes the prom-client registry over OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT is set:
 * the same families, names and labels as /metrics, to `settings.url` every `settings.intervalMs`.
 *
 * Shape: a MeterProvider (it binds the reader and carries the resource service.name/service.version)
 * with one PeriodicExportingMetricReader whose only source is a MetricProducer reading the registry.
 * No OTel instrument is created: a producer hands over ready MetricData, so histograms keep their
 * bucket bounds, which observable instruments could not do.
 *
 * The OTel packages are imported here, at start, so nothing of them loads when export is off.
 * Export failures are logged and never thrown into the daemon.
 */
import type * as SdkMetrics from '@opentelemetry/sdk-metrics';
import type { Registry } from 'prom-client';
import type { OtlpSettings } from '../config/otlp.js';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { LogFields, LogLevel } from '../core/log.js';
import { createPromToOtlp } from './prom-to-otlp.js';

export interface OtlpBridgeDeps {
  registry: Registry;
  settings: OtlpSettings;
  serviceName: string;
  serviceVersion: string;
  log: (level: LogLevel, event: string, fields: LogFields) => void;
  /** Timestamps of the data points; the export schedule itself runs on the SDK's timers. */
  clock?: Clock;
  /** Longest close() waits for the last export (default CLOSE_BUDGET_MS; tests shorten it). */
  closeBudgetMs?: number;
}

export interface OtlpBridge {
  /** Stops the schedule, exports once more (bounded) and shuts the exporter down. Never throws. */
  close(): Promise<void>;
}

/** close() waits at most this long, whatever the export timeout: the daemon's shutdown budget is 10 s. */
const CLOSE_BUDGET_MS = 5000;
type ExportResult = Parameters<Parameters<SdkMetrics.PushMetricExporter['export']>[1]>[0];
/** ExportResultCode.SUCCESS of @opentelemetry/core, a transitive dependency svc does not import. */
const EXPORT_SUCCESS = 0 as ExportResult['code'];

/** Starts the periodic export; the first one runs after `intervalMs`. */
export async function startOtlpBridge(deps: OtlpBridgeDeps): Promise<OtlpBridge> {
  const { registry, settings } = deps;
  const clock = deps.clock ?? systemClock;
  // An export still in flight when close() gave up ends later; its outcome is not the daemon's
  // business any more, and the log sink may already be closed.
  let stopped = false;
  const log: OtlpBridgeDeps['log'] = (level, event, fields) => { if (!stopped) deps.log(level, event, fields); };
  const [sdk, { OTLPMetricExporter }, { defaultResource, resourceFromAttributes }, { ValueType }] = await Promise.all([
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/api'),
  ]);

  // defaultResource() adds telemetry.sdk.*; it reads no environment (unlike the env detector).
  const resource = defaultResource().merge(resourceFromAttributes({
    'service.name': deps.serviceName,
    'service.version': deps.serviceVersion,
  }));
  const scope = { name: 'svc', version: deps.serviceVersion };
  const translator = createPromToOtlp({ DataPointType: sdk.DataPointType, AggregationTemporality: sdk.AggregationTemporality, ValueType }, clock.now());
  const skippedLogged = new Set<string>();

  const producer: SdkMetrics.MetricProducer = {
    async collect() {
      try {
        const { metrics, skipped } = translator.translate(await registry.getMetricsAsJSON(), clock.now());
        for (const name of skipped.filter((n) => !skippedLogged.has(n))) {
          skippedLogged.add(name);
          log('warn', 'otlp.family_skipped', { metric: name, reason: 'type not exported over OTLP' });
        }
        return { resourceMetrics: { resource, scopeMetrics: metrics.length ? [{ scope, metrics }] : [] }, errors: [] };
      } catch (err) {
        // A failing collect callback must not stop later exports: log it, send nothing this round.
        log('warn', 'otlp.collect_failed', { error: errorText(err).slice(0, 200) });
        return { resourceMetrics: { resource, scopeMetrics: [] }, errors: [] };
      }
    },
  };

  // url, headers and timeout are passed explicitly, so the exporter's own reading of process.env
  // (OTEL_EXPORTER_OTLP_*) only fills what svc does not set: TLS files and compression.
  const otlp = new OTLPMetricExporter({ url: settings.url, headers: settings.headers, timeoutMillis: settings.timeoutMs });
  let failures = 0;
  const exporter: SdkMetrics.PushMetricExporter = {
    export(metrics, done) {
      otlp.export(metrics, (result) => {
        if (result.code === EXPORT_SUCCESS) {
          if (failures > 0) log('info', 'otlp.export_recovered', { failures });
          failures = 0;
        } else {
          failures += 1;
          log('warn', 'otlp.export_failed', { ...describeFailure(result.error), failures });
        }
        done(result);
      });
    },
    forceFlush: () => otlp.forceFlush(),
    shutdown: () => otlp.shutdown(),
  };

  const reader = new sdk.PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: settings.intervalMs,
    exportTimeoutMillis: settings.timeoutMs,
    metricProducers: [producer],
  });
  const provider = new sdk.MeterProvider({ resource, readers: [reader] });
  // origin only: the path or userinfo of the URL may carry a credential.
  log('info', 'otlp.started', { endpoint: new URL(settings.url).origin, intervalMs: settings.intervalMs });

  let closing: Promise<void> | null = null;
  return {
    close() {
      closing ??= provider.shutdown({ timeoutMillis: Math.min(settings.timeoutMs, deps.closeBudgetMs ?? CLOSE_BUDGET_MS) }).then(
        () => log('info', 'otlp.stopped', {}),
        (err: unknown) => log('warn', 'otlp.stop_failed', { error: errorText(err).slice(0, 200) }),
      ).finally(() => { stopped = true; });
      return closing;
    },
  };
}

/**
 * Status code or error code and a short message; never the response body (a receiver may echo the
 * request headers there) and never a URL with its userinfo.
 */
function describeFailure(err: Error | undefined): LogFields {
  if (!err) return { error: 'unknown' };
  const { code } = err as Error & { code?: unknown };
  const message = err.message.replace(/\/\/[^/@\s]*@/g, '//***@').slice(0, 200);
  return {
    error: err.name,
    ...(typeof code === 'number' ? { status: code } : typeof code === 'string' ? { code } : {}),
    message,
  };
}
