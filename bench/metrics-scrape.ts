/**
 * /metrics over HTTP: the control plane's listener and route over createMetrics (source families
 * read from the live counters at each scrape) against a bare prom-client registry holding the same
 * series on a bare node:http server — each in a process of its own, both scraped by wrk (target ≥ 0.9).
 * 100 agents × 10 sources, 10 tools per agent, 10 MCP servers, 2 exporters; the two expositions are
 * checked to be identical first, so the ratio is the price of the listener and the live reads.
 *
 *   node --import tsx bench/metrics-scrape.ts
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compareRates } from './lib/compare.js';
import { r3 } from './lib/daemon.js';

async function server(mode: 'svc' | 'bare'): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./lib/metrics-server.ts', import.meta.url)), mode],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => { child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))); });
  return { url: `http://127.0.0.1:${port}/metrics`,
    stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}

const svc = await server('svc');
const bare = await server('bare');
try {
  const live = await (await fetch(svc.url)).text();
  if (live !== await (await fetch(bare.url)).text()) throw new Error('the two sides do not expose the same text: the comparison would be unfair');
  const series = live.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  const c = await compareRates({ url: svc.url, seconds: 5, connections: 8 }, { url: bare.url, seconds: 5, connections: 8 });
  const result = { bench: 'metrics-scrape', series, bytes: Buffer.byteLength(live), svcRps: r3(c.svc.rps), bareRps: r3(c.bare.rps),
    ratio: r3(c.ratio), target: 0.9, svcP99Ms: r3(c.svc.p99Ms), bareP99Ms: r3(c.bare.p99Ms), pass: c.ratio >= 0.9 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`metrics-scrape: /metrics (${series} series, ${(result.bytes / 1024).toFixed(0)} KiB) ${result.svcRps} scrapes/s `
    + `vs bare prom-client over HTTP ${result.bareRps} scrapes/s = ${result.ratio} (target ≥ 0.9)\n`);
} finally {
  await svc.stop();
  await bare.stop();
}
