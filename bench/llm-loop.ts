/**
 * The tool-use loop's own cost (contract §14): triages through the real provider stack — rate limits,
 * the shared loop, the wire format, one MCP tool call through the agent's tools (audited), zod
 * validation of submit_triage, the onFailure wrapper, metrics — against a zero-latency fake model
 * server (test/support/fake-llm.ts, in a child process so its CPU is not ours) on loopback. Every
 * triage is two model calls: a runbook lookup, then submit_triage.
 *
 * Baseline, measured in the same run: bare `fetch` round trips of the same two requests (the exact
 * bytes the loop sent) to the same server, answers parsed as JSON. So
 *   - loop overhead per triage = (one triage) − (two bare round trips), one at a time;
 *   - throughput ratio = triages/s of 8 agents (4 in flight each) ÷ bare round-trip pairs/s at the same concurrency.
 * The MCP tool answers in-process at once and audit rows are discarded: what is left is the loop.
 *
 * Run: node --import tsx bench/llm-loop.ts            (LLM_BENCH_MS=5000 per throughput phase)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LlmProviderName } from '../src/config/schema.js';
import { agentSchema, llmSchema } from '../src/config/schema.js';
import { systemClock } from '../src/core/clock.js';
import type { AgentLog } from '../src/logs/agent-log.js';
import { createMetrics } from '../src/metrics/registry.js';
import { createSourceStats } from '../src/metrics/source-stats.js';
import { buildAgentProvider } from '../src/runtime/build-provider.js';
import type { McpSupervisor } from '../src/runtime/mcp/mcp-types.js';
import type { Provider } from '../src/runtime/providers/provider.js';

const AGENTS = 8;
const PER_AGENT = 4; // dispatch.concurrency's default
const PHASE_MS = Number(process.env.LLM_BENCH_MS ?? 5000);
const ROUNDS = 10;
const PER_ROUND = 200;
const WARMUP = 300;

const FAKE_LLM = fileURLToPath(new URL('../test/support/fake-llm.ts', import.meta.url));
const ALERT: unknown = JSON.parse(readFileSync(new URL('../templates/alert-escalation/fixtures/mock-alert.json', import.meta.url), 'utf8'));
const MODEL: Record<LlmProviderName, string> = { anthropic: 'claude-haiku-4-5', openai: 'gpt-4o-mini' };

/** The zero-latency model in a child process: a lookup on the first step, submit_triage on the next. */
async function startModel(dialect: LlmProviderName): Promise<{ baseUrl: string; apiKey: string; stop(): void }> {
  const code = `
    import { startFakeLlm } from ${JSON.stringify(FAKE_LLM)};
    const fake = await startFakeLlm(${JSON.stringify(dialect)}, { record: false });
    fake.always((req) => fake.view(req).turns === 1
      ? fake.toolCall('runbooks__lookup_runbook', { alertname: 'HighErrorRate' })
      : fake.toolCall('submit_triage', { severity: 'P1', summary: 'HighErrorRate on checkout-api', details: 'Restart the canary.' }));
    console.log(JSON.stringify({ baseUrl: fake.baseUrl, apiKey: fake.apiKey }));
    setInterval(() => { if (fake.violations.length) { console.error(fake.violations[0]); process.exit(1); } }, 500);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (c) => reject(new Error(`fake model exited with ${c}`)));
  });
  const { baseUrl, apiKey } = JSON.parse(first) as { baseUrl: string; apiKey: string };
  return { baseUrl, apiKey, stop: () => child.kill() };
}

const silentLog: AgentLog = { write: () => undefined, close: () => undefined };
const runbooks: McpSupervisor = {
  id: 'runbooks', start: () => Promise.resolve(), close: () => Promise.resolve(),
  status: () => ({ id: 'runbooks', state: 'running', circuit: 'closed', restarts: 0, pid: null, tools: ['lookup_runbook'] }),
  tools: () => [{ name: 'lookup_runbook', description: 'Runbook for an alert name',
    inputSchema: { type: 'object', properties: { alertname: { type: 'string' } }, required: ['alertname'] } }],
  callTool: (_name, args) => Promise.resolve({ ok: true, isError: false, text: `runbook for ${String(args.alertname)}: restart the canary`, content: [] }),
};

function providers(dialect: LlmProviderName, baseUrl: string, apiKey: string): Provider[] {
  const metrics = createMetrics({ stats: createSourceStats(), agents: [] });
  return Array.from({ length: AGENTS }, (_, i) => {
    const agent = agentSchema.parse({ id: `agent-${i}`, provider: dialect, model: MODEL[dialect], mcpServers: [{ id: 'runbooks', command: 'unused' }] });
    const loaded = { dir: '/bench', sources: [], channels: [], skills: [{ path: '/bench/skills/triage.md', text: '# Triage\nLook the runbook up.' }],
      agent: { ...agent, baseUrl, apiKey, llm: llmSchema.parse({}) } };
    return buildAgentProvider(loaded, { log: silentLog, audit: () => Promise.resolve(), metrics, clock: systemClock,
      servers: new Map([['runbooks', runbooks]]) }).provider;
  });
}

let n = 0;
async function triage(provider: Provider, want: string): Promise<void> {
  const result = await provider.triage({ id: `evt-${++n}`, agentId: 'a', sourceId: 'alertmanager', fingerprint: null, payload: ALERT },
    new AbortController().signal);
  if (!result.ok || result.decision.triagedBy !== want) throw new Error(`triage failed: ${JSON.stringify(result)}`);
}

/** The exact requests one triage sends, captured from fetch. */
async function captureRequests(provider: Provider, want: string): Promise<Array<{ url: string; init: RequestInit }>> {
  const captured: Array<{ url: string; init: RequestInit }> = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    captured.push({ url, init: { method: init?.method ?? 'POST', headers: init?.headers ?? {}, body: init?.body ?? null } });
    return realFetch(input, init);
  };
  try {
    await triage(provider, want);
  } finally {
    globalThis.fetch = realFetch;
  }
  return captured;
}

async function barePair(requests: Array<{ url: string; init: RequestInit }>): Promise<void> {
  for (const r of requests) {
    const res = await fetch(r.url, r.init);
    if (res.status !== 200) throw new Error(`bare request: HTTP ${res.status}`);
    await res.json();
  }
}

/** Client CPU µs and wall ms per run of `one`, `count` runs one at a time. */
async function sequential(count: number, one: () => Promise<void>): Promise<{ ms: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) await one();
  const ms = (performance.now() - start) / count;
  const used = process.cpuUsage(cpu);
  return { ms, cpuUs: (used.user + used.system) / count };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * The loop against the bare pair, one at a time, in alternating batches (the host is shared: drift hits
 * both alike); the median over the rounds of each figure and of the per-round differences.
 */
async function overhead(loopOne: () => Promise<void>, bareOne: () => Promise<void>): Promise<Record<string, number>> {
  const rounds: Array<{ loop: { ms: number; cpuUs: number }; bare: { ms: number; cpuUs: number } }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const bare = await sequential(PER_ROUND, bareOne);
    const loop = await sequential(PER_ROUND, loopOne);
    rounds.push({ loop, bare });
  }
  return {
    loopMsPerTriage: median(rounds.map((r) => r.loop.ms)),
    bareMsPerTriage: median(rounds.map((r) => r.bare.ms)),
    overheadMsPerTriage: median(rounds.map((r) => r.loop.ms - r.bare.ms)),
    loopCpuUsPerTriage: median(rounds.map((r) => r.loop.cpuUs)),
    bareCpuUsPerTriage: median(rounds.map((r) => r.bare.cpuUs)),
    overheadCpuUsPerTriage: median(rounds.map((r) => r.loop.cpuUs - r.bare.cpuUs)),
  };
}

/** `workers` loops of `one` for `ms`: completed runs per second. */
async function throughput(workers: Array<() => Promise<void>>, ms: number): Promise<number> {
  let done = 0;
  const until = performance.now() + ms;
  const start = performance.now();
  await Promise.all(workers.map(async (one) => {
    while (performance.now() < until) {
      await one();
      done += 1;
    }
  }));
  return done / ((performance.now() - start) / 1000);
}

for (const dialect of ['anthropic', 'openai'] as const) {
  const model = await startModel(dialect);
  try {
    const want = `${dialect}:${MODEL[dialect]}`;
    const agents = providers(dialect, model.baseUrl, model.apiKey);
    const first = agents[0] as Provider;
    const requests = await captureRequests(first, want);
    for (let i = 0; i < WARMUP; i++) { await triage(first, want); await barePair(requests); }

    const seq = await overhead(() => triage(first, want), () => barePair(requests));

    // Alternating halves of each phase, as above.
    const slots = agents.flatMap((p) => Array.from({ length: PER_AGENT }, () => p));
    let bareRate = 0;
    let loopRate = 0;
    for (let half = 0; half < 2; half++) {
      bareRate += (await throughput(slots.map(() => () => barePair(requests)), PHASE_MS / 2)) / 2;
      loopRate += (await throughput(slots.map((p) => () => triage(p, want)), PHASE_MS / 2)) / 2;
    }

    const fixed = (v: number | undefined, digits: number): number => Number((v ?? 0).toFixed(digits));
    const row = {
      bench: 'llm-loop', dialect, agents: AGENTS, inFlight: slots.length, modelCallsPerTriage: requests.length,
      triagesPerSec: Math.round(loopRate), bareRoundTripPairsPerSec: Math.round(bareRate), ratio: fixed(loopRate / bareRate, 3),
      loopMsPerTriage: fixed(seq.loopMsPerTriage, 3), bareMsPerTriage: fixed(seq.bareMsPerTriage, 3),
      overheadMsPerTriage: fixed(seq.overheadMsPerTriage, 3),
      loopCpuUsPerTriage: fixed(seq.loopCpuUsPerTriage, 0), bareCpuUsPerTriage: fixed(seq.bareCpuUsPerTriage, 0),
      overheadCpuUsPerTriage: fixed(seq.overheadCpuUsPerTriage, 0),
    };
    console.log(JSON.stringify(row));
    console.log(`llm-loop ${dialect}: ${row.triagesPerSec} triages/s with ${AGENTS} agents × ${PER_AGENT} in flight vs `
      + `${row.bareRoundTripPairsPerSec}/s bare pairs of the same ${requests.length} requests: ratio ${row.ratio}; one at a time `
      + `${row.loopMsPerTriage} ms per triage vs ${row.bareMsPerTriage} ms bare = loop overhead ${row.overheadMsPerTriage} ms `
      + `(client CPU ${row.loopCpuUsPerTriage} µs vs ${row.bareCpuUsPerTriage} µs: ${row.overheadCpuUsPerTriage} µs of it the loop's)`);
  } finally {
    model.stop();
  }
}
