/**
 * Translation of a prom-client scrape (`Registry.getMetricsAsJSON()`) into OpenTelemetry SDK
 * MetricData (sdk-metrics 2.x, build/src/export/MetricData.d.ts), so the OTLP export carries the same
 * families, names, label sets and values as /metrics:
 *
 *   counter   → Sum, monotonic, cumulative
 *   gauge     → Gauge
 *   histogram → Histogram, cumulative: explicit bounds from the `le` labels, per-bucket counts
 *               (Prometheus buckets are cumulative, OTLP ones are not), sum and count
 *
 * Names are kept exactly (no unit, no suffix rewriting), labels become string attributes, values are
 * doubles as in Prometheus. Families without a series are left out: OTLP has no empty metric.
 *
 * The OTel enums are passed in from the lazily imported SDK, so this file loads nothing at runtime.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import type * as OtelApi from '@opentelemetry/api';
import type * as SdkMetrics from '@opentelemetry/sdk-metrics';
import type { Registry } from 'prom-client';

export type PromFamily = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];
type PromValue = PromFamily['values'][number] & { metricName?: string };

export interface OtlpEnums {
  DataPointType: typeof SdkMetrics.DataPointType;
  AggregationTemporality: typeof SdkMetrics.AggregationTemporality;
  ValueType: typeof OtelApi.ValueType;
}

export interface Translation {
  metrics: SdkMetrics.MetricData[];
  /** Families of a type OTLP metric data cannot carry here (prom-client summaries). */
  skipped: string[];
}

export interface PromToOtlp {
  /** Translates one scrape taken at `nowMs` (ms since the epoch). */
  translate(families: readonly PromFamily[], nowMs: number): Translation;
}

/**
 * Start times of cumulative points (OTLP: the time the cumulation began; any earlier time is valid,
 * a later one is not): `startMs` (the bridge's start) for the series of the first collection; the
 * previous collection for a series that appears later, or whose value goes down (a reset), since all
 * it counts happened after that. A reset thus shows as a new start time, not a negative increase.
 */
export function createPromToOtlp(enums: OtlpEnums, startMs: number): PromToOtlp {
  const { DataPointType, AggregationTemporality, ValueType } = enums;
  const starts = new Map<string, { startMs: number; last: number }>();
  let previousMs = startMs; // the first collection's series start at the bridge start

  function startOf(key: string, value: number, seen: Set<string>): HrTime {
    seen.add(key);
    const known = starts.get(key);
    if (!known) {
      starts.set(key, { startMs: previousMs, last: value });
      return hrTime(previousMs);
    }
    if (value < known.last) known.startMs = previousMs;
    known.last = value;
    return hrTime(known.startMs);
  }

  return {
    translate(families, nowMs) {
      const endTime = hrTime(nowMs);
      const seen = new Set<string>();
      const metrics: SdkMetrics.MetricData[] = [];
      const skipped: string[] = [];
      for (const family of families) {
        const descriptor = { name: family.name, description: family.help, unit: '', valueType: ValueType.DOUBLE };
        // prom-client types `type` as a numeric enum but sets the strings 'counter', 'gauge', ...
        const type = String(family.type);
        const values = family.values as PromValue[];
        if (values.length === 0) continue;
        if (type === 'counter') {
          metrics.push({
            descriptor, dataPointType: DataPointType.SUM, aggregationTemporality: AggregationTemporality.CUMULATIVE, isMonotonic: true,
            dataPoints: values.map((v) => {
              const attributes = attributesOf(v.labels);
              return { attributes, startTime: startOf(seriesKey(family.name, attributes), v.value, seen), endTime, value: v.value };
            }),
          });
        } else if (type === 'gauge') {
          metrics.push({
            // Temporality is required by the type but not used for gauges (the serializer ignores it).
            descriptor, dataPointType: DataPointType.GAUGE, aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPoints: values.map((v) => ({ attributes: attributesOf(v.labels), startTime: endTime, endTime, value: v.value })),
          });
        } else if (type === 'histogram') {
          metrics.push({
            descriptor, dataPointType: DataPointType.HISTOGRAM, aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPoints: histogramSeries(family.name, values).map(({ attributes, value }) => (
              { attributes, startTime: startOf(seriesKey(family.name, attributes), value.count, seen), endTime, value })),
          });
        } else {
          skipped.push(family.name);
        }
      }
      for (const key of starts.keys()) if (!seen.has(key)) starts.delete(key); // removed series
      previousMs = nowMs;
      return { metrics, skipped };
    },
  };
}

type Histogram = SdkMetrics.HistogramMetricData['dataPoints'][number]['value'];

/** Groups the `_bucket`, `_sum` and `_count` samples of a histogram family by label set (minus `le`). */
function histogramSeries(name: string, values: readonly PromValue[]): Array<{ attributes: Attributes; value: Histogram }> {
  const series = new Map<string, { attributes: Attributes; buckets: Array<[number, number]>; sum: number; count: number }>();
  for (const v of values) {
    const { le, ...labels } = v.labels as Record<string, string | number | undefined>;
    const attributes = attributesOf(labels);
    const key = seriesKey(name, attributes);
    let s = series.get(key);
    if (!s) series.set(key, s = { attributes, buckets: [], sum: 0, count: 0 });
    if (v.metricName === `${name}_bucket`) s.buckets.push([le === '+Inf' ? Infinity : Number(le), v.value]);
    else if (v.metricName === `${name}_sum`) s.sum = v.value;
    else if (v.metricName === `${name}_count`) s.count = v.value;
  }
  return [...series.values()].map(({ attributes, buckets, sum, count }) => {
    buckets.sort((a, b) => a[0] - b[0]);
    const boundaries = buckets.filter(([le]) => Number.isFinite(le)).map(([le]) => le);
    // OTLP: n bounds → n+1 non-cumulative counts, the last one for (last bound, +Inf).
    const counts: number[] = [];
    let below = 0;
    for (const [, cumulative] of buckets.slice(0, boundaries.length)) {
      counts.push(cumulative - below);
      below = cumulative;
    }
    counts.push(count - below);
    return { attributes, value: { buckets: { boundaries, counts }, sum, count } };
  });
}

function attributesOf(labels: Record<string, string | number | undefined>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(labels)) if (v !== undefined) out[k] = String(v);
  return out;
}

/** Family name plus label set, independent of label order. */
function seriesKey(name: string, attributes: Attributes): string {
  return JSON.stringify([name, ...Object.keys(attributes).sort().map((k) => [k, attributes[k]])]);
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
