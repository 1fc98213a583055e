/**
 * `npm run bench`: every benchmark in this folder, one after another in its own process (they would
 * disturb each other's figures side by side), then the one-line JSON results together. Each bench
 * prints a ratio against a baseline it measured in the same run; no absolute figure is judged here.
 * `npm run bench -- webhook-ingest audit-verify` runs only those.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !['run-all.ts', 'load-client.ts', 'audit-appends.ts'].includes(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

const results: string[] = [];
let failed = 0;
for (const name of benches) {
  process.stdout.write(`\n== ${name}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${name}.ts`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  process.stdout.write(run.stdout);
  if (run.status !== 0) failed += 1;
  results.push(...run.stdout.split('\n').filter((line) => line.startsWith('{')));
}
process.stdout.write(`\n== results (JSON, one line a bench)\n${results.join('\n')}\n`);
process.exitCode = failed > 0 ? 1 : 0;
