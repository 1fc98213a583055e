/**
 * Starts a worker thread from a module next to the caller, whether svc runs compiled (dist/, plain JS)
 * or from source under tsx (tests, benches). Under tsx the `.ts` entry needs tsx's loader registered
 * inside the worker first — Node 20 applies `--import` hooks to a worker only after its entry has
 * begun to load — so the worker starts from a small CommonJS bootstrap that registers it, then
 * imports the entry.
 */
import { Worker } from 'node:worker_threads';

const BOOTSTRAP = `'use strict';
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsxApi !== null) (await import(workerData.tsxApi)).register();
  await import(workerData.entry);
})();
`;

/**
 * `entry` is the worker module's URL as the caller's own file would name it: pass
 * `new URL('./x-worker.js', import.meta.url)` and `import.meta.url`; under tsx the `.ts` twin is used.
 * The worker reads its own data from `workerData.data`.
 */
export function startModuleWorker(entry: URL, callerUrl: string, data: unknown): Worker {
  const dev = callerUrl.endsWith('.ts');
  const href = dev ? entry.href.replace(/\.js$/, '.ts') : entry.href;
  return new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { entry: href, tsxApi: dev ? import.meta.resolve('tsx/esm/api') : null, data },
  });
}
