/**
 * Reads never hold up ingest (contract §11.4): a daemon (its own process) holding 12 events of
 * 900 KB; 40 clients walk every page of /events?limit=1000 in a loop while wrk (its own process)
 * posts signed alerts. Ingest p99 with the readers against without them, same run (target: close to 1).
 * SVC_BENCH_ROOT=<checkout> runs the same against another build (the "before" figure).
 *
 *   npm run build && node --import tsx bench/readers-ingest.ts
 */
import { benchDaemon, r3, signedAlert } from './lib/daemon.js';
import { runWrk } from './lib/wrk.js';

const READERS = 40;
const d = await benchDaemon();
try {
  await d.start();
  const { body, headers } = signedAlert(d.dir, d.secret);
  const pad = 'x'.repeat(900 * 1024);
  for (let i = 0; i < 12; i++) {
    const big = JSON.stringify({ n: i, pad });
    const { headers: h } = { headers: { ...headers, 'X-Signature': (await import('../src/ingest/signature.js')).signBody(d.secret, big) } };
    const r = await fetch(d.ingestUrl, { method: 'POST', body: big, headers: h });
    if (r.status !== 202) throw new Error(`big body: ${r.status}`);
  }
  const quiet = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 10, connections: 4 });
  let stop = false;
  let pages = 0;
  let failures = 0;
  const reader = async (): Promise<void> => {
    while (!stop) {
      let cursor: string | null = null;
      do {
        const res = await fetch(`${d.cp}/events?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`).catch(() => null);
        if (res === null || res.status !== 200) { failures += 1; break; }
        const page = await res.json() as { nextCursor: string | null };
        pages += 1;
        cursor = page.nextCursor;
      } while (cursor !== null && !stop);
    }
  };
  const readers = Array.from({ length: READERS }, reader);
  const busy = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 10, connections: 4 });
  stop = true;
  await Promise.all(readers);
  const rss = Math.round(d.rss() / 1048576);
  const result = { bench: 'readers-ingest', readers: READERS, pagesRead: pages, readFailures: failures,
    quietP99Ms: r3(quiet.p99Ms), busyP99Ms: r3(busy.p99Ms), p99Ratio: r3(busy.p99Ms / quiet.p99Ms),
    quietRps: Math.round(quiet.rps), busyRps: Math.round(busy.rps), ingestErrors: quiet.errors + busy.errors, rssMiB: rss };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`readers-ingest: ingest p99 ${result.busyP99Ms} ms with ${READERS} readers of 900 KB pages (${pages} pages read) `
    + `vs ${result.quietP99Ms} ms without = ${result.p99Ratio}×; ${result.busyRps} vs ${result.quietRps} req/s; RSS ${rss} MiB\n`);
} finally {
  await d.stop();
  d.cleanup();
}
