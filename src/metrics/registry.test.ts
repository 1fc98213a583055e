import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { register as globalRegister } from 'prom-client';
import { createSourceStats } from './source-stats.js';
import { METRIC_FAMILIES, PROCESS_METRIC_FAMILIES } from './metric-names.js';
import { packageVersion } from '../core/version.js';
import { createMetrics } from './registry.js';

interface Sample { name: string; labels: Record<string, string>; value: number }
interface Exposition { help: Map<string, string>; type: Map<string, string>; samples: Sample[] }

/** Just enough of the text format 0.0.4 to check what the registry writes. */
function parse(text: string): Exposition {
  const out: Exposition = { help: new Map(), type: new Map(), samples: [] };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === 'HELP' ? out.help : out.type).set(meta[2] as string, meta[3] as string);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `unparsable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = l[2] as string;
    out.samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The family a sample belongs to (histogram samples carry _bucket, _sum, _count). */
function familyOf(sample: string, types: Map<string, string>): string {
  if (types.has(sample)) return sample;
  const base = sample.replace(/_(bucket|sum|count)$/, '');
  assert.equal(types.get(base), 'histogram', `sample ${sample} belongs to no declared family`);
  return base;
}

function value(expo: Exposition, name: string, labels: Record<string, string>): number | undefined {
  return expo.samples.find((s) => s.name === name
    && Object.keys(labels).length === Object.keys(s.labels).length
    && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const config = {
  agents: [{ id: 'oncall', sources: ['alertmanager', 'grafana'], channels: ['oncall-dm', 'pushover'], receiptChannels: ['pushover'] },
    { id: 'billing', sources: ['stripe'] }],
  mcpServers: ['filesystem', 'github'],
  exporters: ['splunk'],
};

/**
 * Exactly what promtool 2.42 (Debian bookworm's `prometheus`) says about the names the specification
 * fixes: four `_ms` names and one counter without `_total`. Anything else is a real problem.
 */
const ALLOWED_PROMTOOL_COMPLAINTS = [
  'mcp_server_drain_duration_ms metric names should not contain abbreviated units',
  'svc_audit_backpressure_backlog_ms metric names should not contain abbreviated units',
  'svc_audit_batch_interval_ms metric names should not contain abbreviated units',
  'svc_provider_rate_limit_wait_ms metric names should not contain abbreviated units',
  'svc_provider_rate_limit_waits counter metrics should have "_total" suffix',
].sort();

function promtool(text: string): { status: number | null; complaints: string[]; stdout: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    assert.fail('promtool is not on PATH: install Debian\'s `prometheus` package (apt-get install prometheus); .ci/run must install it');
  }
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, complaints: run.stderr.split('\n').filter((l) => l.trim() !== '').sort() };
}

describe('createMetrics', () => {
  it('exposes every family of the specification from startup, with HELP and TYPE, and nothing else', async () => {
    for (const deps of [{ stats: createSourceStats(), agents: [] }, { stats: createSourceStats(), ...config }]) {
      const metrics = createMetrics(deps);
      const expo = parse(await metrics.registry.metrics());
      assert.deepEqual([...expo.type.keys()], METRIC_FAMILIES.map((f) => f.name));
      for (const f of METRIC_FAMILIES) {
        assert.equal(expo.type.get(f.name), f.type, f.name);
        assert.equal(expo.help.get(f.name), f.help, f.name);
      }
      for (const s of expo.samples) familyOf(s.name, expo.type); // no stray (default Node) metrics
    }
    assert.equal(globalRegister.getMetricsAsArray().length, 0, 'the global registry stays empty');
  });

  it('says which build it is and whether the daemon is ready at the scrape', async () => {
    const metrics = createMetrics({ stats: createSourceStats(), agents: [] });
    let expo = parse(await metrics.registry.metrics());
    assert.equal(value(expo, 'svc_build_info', { version: packageVersion(), node: process.versions.node }), 1);
    assert.equal(value(expo, 'svc_ready', {}), 0, 'not ready before the daemon says how to ask');
    let ready = true;
    metrics.daemon.readiness(() => Promise.resolve(ready));
    expo = parse(await metrics.registry.metrics());
    assert.equal(value(expo, 'svc_ready', {}), 1);
    ready = false;
    expo = parse(await metrics.registry.metrics());
    assert.equal(value(expo, 'svc_ready', {}), 0);
    metrics.daemon.readiness(() => Promise.reject(new Error('store gone')));
    expo = parse(await metrics.registry.metrics());
    assert.equal(value(expo, 'svc_ready', {}), 0, 'a probe that fails is not ready');
  });

  it('with processMetrics, adds the process and Node.js families under svc_, which promtool lints without a complaint', async () => {
    const metrics = createMetrics({ stats: createSourceStats(), agents: [], processMetrics: true });
    const text = await metrics.registry.metrics();
    const expo = parse(text);
    assert.deepEqual([...expo.type.keys()], [...METRIC_FAMILIES.map((f) => f.name), ...PROCESS_METRIC_FAMILIES.map((f) => f.name)]);
    for (const f of PROCESS_METRIC_FAMILIES) assert.equal(expo.type.get(f.name), f.type, f.name);
    assert.ok((value(expo, 'svc_process_resident_memory_bytes', {}) ?? 0) > 0);
    assert.ok((value(expo, 'svc_process_open_fds', {}) ?? 0) > 0);
    const own = await createMetrics({ stats: createSourceStats(), agents: [] }).registry.metrics();
    assert.deepEqual(promtool(text).complaints, promtool(own).complaints, 'the process families add no lint complaint');
    assert.equal(globalRegister.getMetricsAsArray().length, 0, 'the global registry stays empty');
  });

  it('uses the exposition content type of contract §8', () => {
    assert.equal(createMetrics({ stats: createSourceStats(), agents: [] }).contentType, 'text/plain; version=0.0.4; charset=utf-8');
  });

  it('has a zero series per configured agent, source, MCP server and exporter from startup', async () => {
    const expo = parse(await createMetrics({ stats: createSourceStats(), ...config }).registry.metrics());
    for (const server_id of config.mcpServers) {
      for (const name of ['mcp_server_restarts_total', 'mcp_server_circuit_state', 'mcp_server_circuit_open_total',
        'mcp_server_rate_limited_total', 'mcp_server_drain_duration_ms_count']) {
        assert.equal(value(expo, name, { server_id }), 0, `${name} ${server_id}`);
      }
    }
    for (const name of ['svc_audit_export_acked_total', 'svc_audit_export_failures_total', 'svc_audit_export_last_seq']) {
      assert.equal(value(expo, name, { exporter: 'splunk' }), 0, name);
    }
    for (const { id: agent, sources } of config.agents) {
      assert.equal(value(expo, 'svc_provider_rate_limit_waits', { agent }), 0);
      assert.equal(value(expo, 'svc_provider_rate_limit_wait_ms_count', { agent }), 0);
      for (const source of sources) {
        assert.equal(value(expo, 'source_messages_received_total', { agent, source }), 0);
        assert.equal(value(expo, 'source_messages_processed_total', { agent, source }), 0);
        assert.equal(value(expo, 'source_messages_dlq_total', { agent, source, kind: 'dispatch' }), 0);
        assert.equal(value(expo, 'source_inflight', { agent, source }), 0);
      }
    }
    // Tool ids are not configuration: no tool series until a tool call waits.
    assert.equal(expo.samples.filter((s) => s.name === 'svc_tool_rate_limit_waits_total').length, 0);
    // The LLM families get their series when an agent with a real provider is built (LlmMetrics.zero).
    assert.equal(expo.samples.filter((s) => s.name.startsWith('svc_llm_')).length, 0);
    assert.equal(expo.samples.filter((s) => s.name === 'source_inflight').length, 3);
  });

  it('gives every series exactly the label names of its family', async () => {
    const metrics = createMetrics({ stats: createSourceStats(), ...config });
    metrics.rateLimit.toolWaits.inc({ agent: 'oncall', tool: 'read_file' });
    metrics.audit.batchRows.observe(7);
    metrics.ingest.rejected.inc({ source: '_unknown', reason: 'unknown-source' });
    metrics.llm.zero('oncall', 'anthropic');
    // Policies and heartbeats come from oncall.yaml: their series appear with the first use.
    metrics.oncall.escalated('oncall', 'default', 'timeout');
    metrics.oncall.heartbeatAge('oncall', 'watchdog', 12);
    const expo = parse(await metrics.registry.metrics());
    const seen = new Set<string>();
    for (const s of expo.samples) {
      const name = familyOf(s.name, expo.type);
      seen.add(name);
      const family = METRIC_FAMILIES.find((f) => f.name === name);
      const names = Object.keys(s.labels).filter((l) => !(s.name.endsWith('_bucket') && l === 'le')).sort();
      assert.deepEqual(names, [...(family?.labels ?? ['?'])].sort(), s.name);
    }
    assert.deepEqual([...seen].sort(), METRIC_FAMILIES.map((f) => f.name).sort(), 'every family has a series');
  });

  it('zero() gives an agent with a real provider its LLM series from startup', async () => {
    const metrics = createMetrics({ stats: createSourceStats(), ...config });
    metrics.llm.zero('oncall', 'anthropic');
    const expo = parse(await metrics.registry.metrics());
    assert.equal(value(expo, 'svc_llm_requests_total', { agent: 'oncall', provider: 'anthropic', outcome: 'ok' }), 0);
    assert.equal(value(expo, 'svc_llm_tokens_total', { agent: 'oncall', provider: 'anthropic', direction: 'input' }), 0);
    assert.equal(value(expo, 'svc_llm_tokens_total', { agent: 'oncall', provider: 'anthropic', direction: 'output' }), 0);
    assert.equal(value(expo, 'svc_llm_request_duration_seconds_count', { agent: 'oncall', provider: 'anthropic' }), 0);
    assert.equal(expo.samples.filter((s) => s.name.startsWith('svc_llm_') && s.labels.agent === 'billing').length, 0);
  });

  it('mirrors the live SourceStats, counters monotonic across scrapes', async () => {
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, ...config });
    const expected = (agent: string, source: string): Array<[string, Record<string, string>, number]> => {
      const c = stats.get(agent, source);
      return [
        ['source_messages_received_total', { agent, source }, c.received],
        ['source_messages_processed_total', { agent, source }, c.processed],
        ['source_messages_dlq_total', { agent, source, kind: 'dispatch' }, c.dlq],
        ['source_inflight', { agent, source }, c.inflight],
      ];
    };
    const previous = new Map<string, number>();
    for (let round = 1; round <= 4; round++) {
      const c = stats.get('oncall', 'alertmanager');
      c.received += 5 * round;
      c.inflight = round % 2; // a gauge: goes up and down
      c.processed += round;
      c.dlq += round === 3 ? 2 : 0;
      stats.get('billing', 'stripe').received += 1;
      const expo = parse(await metrics.registry.metrics());
      for (const [agent, source] of [['oncall', 'alertmanager'], ['oncall', 'grafana'], ['billing', 'stripe']] as const) {
        for (const [name, labels, want] of expected(agent, source)) {
          const got = value(expo, name, labels);
          assert.equal(got, want, `${name} ${JSON.stringify(labels)} round ${round}`);
          const key = `${name}${JSON.stringify(labels)}`;
          if (name.endsWith('_total')) assert.ok((got ?? -1) >= (previous.get(key) ?? 0), `${key} went down`);
          previous.set(key, got ?? -1);
        }
      }
    }
    assert.equal(value(parse(await metrics.registry.metrics()), 'source_messages_received_total',
      { agent: 'oncall', source: 'alertmanager' }), 50);
  });

  it('shows a source counter that went down (never done by SourceStats) as a reset, not a wrong number', async () => {
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, agents: [{ id: 'oncall', sources: ['alertmanager'] }] });
    const labels = { agent: 'oncall', source: 'alertmanager' };
    stats.get('oncall', 'alertmanager').received = 5;
    assert.equal(value(parse(await metrics.registry.metrics()), 'source_messages_received_total', labels), 5);
    stats.get('oncall', 'alertmanager').received = 3;
    assert.equal(value(parse(await metrics.registry.metrics()), 'source_messages_received_total', labels), 3);
    stats.get('oncall', 'alertmanager').received = 4;
    assert.equal(value(parse(await metrics.registry.metrics()), 'source_messages_received_total', labels), 4);
  });

  it('answers concurrent scrapes alike', async () => {
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, ...config });
    stats.get('oncall', 'grafana').processed = 9;
    const [a, b] = await Promise.all([metrics.registry.metrics(), metrics.registry.metrics()]);
    assert.equal(a, b);
    assert.equal(value(parse(a), 'source_messages_processed_total', { agent: 'oncall', source: 'grafana' }), 9);
  });

  it('also exposes a live source pair that is not in the configuration', async () => {
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, agents: [{ id: 'oncall', sources: ['alertmanager'] }] });
    stats.get('oncall', 'retired').inflight = 2; // e.g. an event re-dispatched from a previous run
    const expo = parse(await metrics.registry.metrics());
    assert.equal(value(expo, 'source_inflight', { agent: 'oncall', source: 'retired' }), 2);
    assert.equal(value(expo, 'source_inflight', { agent: 'oncall', source: 'alertmanager' }), 0);
  });

  it('passes `promtool check metrics` but for the naming lint the fixed names cause', async () => {
    const empty = await createMetrics({ stats: createSourceStats(), agents: [] }).registry.metrics();
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, ...config });
    stats.get('oncall', 'alertmanager').received = 3;
    metrics.mcp.circuitState.set({ server_id: 'github' }, 2);
    metrics.mcp.drainDurationMs.observe({ server_id: 'github' }, 420);
    metrics.audit.batchRows.observe(12);
    metrics.rateLimit.providerWaitMs.observe({ agent: 'oncall' }, 1500);
    metrics.rateLimit.toolWaits.inc({ agent: 'oncall', tool: 'read_file' });
    metrics.llm.requests.inc({ agent: 'oncall', provider: 'openai', outcome: 'rate-limited' });
    metrics.llm.tokens.inc({ agent: 'oncall', provider: 'openai', direction: 'input' }, 512);
    metrics.llm.durationSeconds.observe({ agent: 'oncall', provider: 'openai' }, 1.25);
    const busy = await metrics.registry.metrics();
    // promtool lints only families that have samples: with nothing configured, the labelled families
    // are HELP and TYPE alone and draw no complaint.
    const expectedFor = (text: string): string[] => {
      const expo = parse(text);
      const withSamples = new Set(expo.samples.map((s) => familyOf(s.name, expo.type)));
      return ALLOWED_PROMTOOL_COMPLAINTS.filter((line) => withSamples.has(line.split(' ')[0] as string));
    };
    assert.equal(expectedFor(empty).length, 2);
    assert.deepEqual(expectedFor(busy), ALLOWED_PROMTOOL_COMPLAINTS);
    for (const text of [empty, busy]) {
      const result = promtool(text);
      assert.equal(result.stdout, '');
      assert.deepEqual(result.complaints, expectedFor(text));
      assert.equal(result.status, 3, 'exit 3 is "lint problems only"; 1 would be a parse error');
    }
  });
});
