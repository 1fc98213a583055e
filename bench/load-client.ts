/**
 * The load client the request-rate benches share: keep-alive GETs from a worker thread, so the
 * client does not share the measured event loop.
 */
import { Worker } from 'node:worker_threads';

/** Plain JavaScript in a worker thread, so the client does not share the measured event loop. */
const CLIENT = `
const { workerData, parentPort } = require('node:worker_threads');
const http = require('node:http');
const { port, path, count, concurrency, headers } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
let sent = 0;
let bad = 0;
const one = () => new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
    if (res.statusCode !== 200) bad += 1;
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end();
});
const worker = async () => { while (sent < count) { sent += 1; await one(); } };
const started = process.hrtime.bigint();
Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  parentPort.postMessage({ rps: count / seconds, bad });
}, (err) => { throw err; });
`;

/** `count` GETs of `path` on 127.0.0.1:`port`, `concurrency` in flight; requests/s and non-200 answers. */
export function loadGet(opts: { port: number; path: string; count: number; concurrency: number; headers: Record<string, string> }):
  Promise<{ rps: number; bad: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: opts });
    worker.once('message', (m: { rps: number; bad: number }) => resolve(m));
    worker.once('error', reject);
    worker.once('exit', (code) => { if (code !== 0) reject(new Error(`load client exited with code ${code}`)); });
  });
}
