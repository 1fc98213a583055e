import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValueType } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType } from '@opentelemetry/sdk-metrics';
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { Counter, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { createPromToOtlp } from './prom-to-otlp.js';

const ENUMS = { DataPointType, AggregationTemporality, ValueType };
const T0 = 1_700_000_000_000;
const hr = (ms: number) => [Math.floor(ms / 1000), (ms % 1000) * 1e6];

function byName(metrics: MetricData[], name: string): MetricData {
  const found = metrics.find((m) => m.descriptor.name === name);
  assert.ok(found, `${name} missing`);
  return found;
}

describe('createPromToOtlp', () => {
  it('maps each family type, keeps names, help and labels, and leaves out families without series', async () => {
    const registry = new Registry();
    const registers = [registry];
    new Counter({ name: 'jobs_total', help: 'Jobs.', labelNames: ['queue'], registers }).inc({ queue: 'a' }, 2);
    new Gauge({ name: 'depth', help: 'Depth.', registers }).set(7);
    new Counter({ name: 'unused_total', help: 'Never touched.', labelNames: ['x'], registers });
    new Summary({ name: 'latency', help: 'A summary.', registers }).observe(1);
    const { metrics, skipped } = createPromToOtlp(ENUMS, T0).translate(await registry.getMetricsAsJSON(), T0 + 5000);

    assert.deepEqual(metrics.map((m) => m.descriptor.name), ['jobs_total', 'depth']);
    assert.deepEqual(skipped, ['latency']);
    const jobs = byName(metrics, 'jobs_total');
    assert.equal(jobs.dataPointType, DataPointType.SUM);
    assert.equal(jobs.aggregationTemporality, AggregationTemporality.CUMULATIVE);
    assert.ok(jobs.dataPointType === DataPointType.SUM && jobs.isMonotonic);
    assert.deepEqual(jobs.descriptor, { name: 'jobs_total', description: 'Jobs.', unit: '', valueType: ValueType.DOUBLE });
    assert.deepEqual(jobs.dataPoints, [{ attributes: { queue: 'a' }, startTime: hr(T0), endTime: hr(T0 + 5000), value: 2 }]);
    const depth = byName(metrics, 'depth');
    assert.equal(depth.dataPointType, DataPointType.GAUGE);
    assert.deepEqual(depth.dataPoints.map((p) => [p.attributes, p.value]), [[{}, 7]]);
  });

  it('turns cumulative le buckets into per-bucket counts, one data point per label set', async () => {
    const registry = new Registry();
    const h = new Histogram({ name: 'wait_ms', help: 'Wait.', labelNames: ['agent'], buckets: [10, 100, 1000], registers: [registry] });
    for (const v of [5, 50, 60, 5000]) h.observe({ agent: 'a' }, v);
    h.observe({ agent: 'b' }, 1000);
    const { metrics } = createPromToOtlp(ENUMS, T0).translate(await registry.getMetricsAsJSON(), T0 + 1);
    const wait = byName(metrics, 'wait_ms');
    assert.equal(wait.dataPointType, DataPointType.HISTOGRAM);
    assert.deepEqual(wait.dataPoints.map((p) => [p.attributes, p.value]), [
      [{ agent: 'a' }, { buckets: { boundaries: [10, 100, 1000], counts: [1, 2, 0, 1] }, sum: 5115, count: 4 }],
      [{ agent: 'b' }, { buckets: { boundaries: [10, 100, 1000], counts: [0, 0, 1, 0] }, sum: 1000, count: 1 }],
    ]);
  });

  it('keeps the start time until a series goes down, then starts it at the previous collection', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'n_total', help: 'N.', labelNames: ['k'], registers: [registry] });
    const translator = createPromToOtlp(ENUMS, T0);
    const startOf = async (at: number) => {
      const { metrics } = translator.translate(await registry.getMetricsAsJSON(), at);
      return metrics.length ? byName(metrics, 'n_total').dataPoints[0]?.startTime : undefined;
    };
    c.inc({ k: 'x' }, 5);
    assert.deepEqual(await startOf(T0 + 1000), hr(T0));
    c.inc({ k: 'x' }, 1);
    assert.deepEqual(await startOf(T0 + 2000), hr(T0));
    c.remove({ k: 'x' }); // a reset between two collections
    c.inc({ k: 'x' }, 2);
    assert.deepEqual(await startOf(T0 + 3000), hr(T0 + 2000));
    c.inc({ k: 'x' }, 1);
    assert.deepEqual(await startOf(T0 + 4000), hr(T0 + 2000));
    // A series that disappears and comes back is new: it starts at the collection before it appeared.
    c.remove({ k: 'x' });
    assert.equal(await startOf(T0 + 5000), undefined);
    c.inc({ k: 'x' }, 1);
    assert.deepEqual(await startOf(T0 + 6000), hr(T0 + 5000));
  });

  it('starts a series first seen after the first collection at the collection before it', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'n_total', help: 'N.', labelNames: ['k'], registers: [registry] });
    const translator = createPromToOtlp(ENUMS, T0);
    c.inc({ k: 'early' });
    translator.translate(await registry.getMetricsAsJSON(), T0 + 1000);
    c.inc({ k: 'late' });
    const { metrics } = translator.translate(await registry.getMetricsAsJSON(), T0 + 2000);
    assert.deepEqual(byName(metrics, 'n_total').dataPoints.map((p) => [p.attributes.k, p.startTime]),
      [['early', hr(T0)], ['late', hr(T0 + 1000)]]);
  });
});
