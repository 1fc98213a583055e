/**
 * A backlog costs disk, not memory (contract §10.1): while the on-call webhook answers 503, 40,000
 * alerts arrive. The daemon keeps them in the store, svc_dispatch_backlog reports them, and once the
 * receiver recovers every one of them is delivered, each under its own deliveryId.
 *
 * Memory is read from the daemon's RSS once the burst is under way: the first few thousand posts
 * grow the working set of a busy process (V8's heaps expand, sockets and buffers warm up) by
 * 35–65 MiB whatever the backlog, and after that RSS stays flat while the backlog grows fivefold
 * (measured: the peak with 36,000–40,000 waiting is 0–12 MiB above the peak with 4,000–8,000). So
 * the bound is on what those 32,000 more waiting alerts add — under 16 MiB, about 520 bytes each —
 * which a per-alert timer, promise or map entry would exceed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { metricValue, sign } from './support/http.js';
import { waitFor } from './support/wait.js';

const ALERTS = Number(process.env.BACKLOG_ALERTS ?? 40_000);
const CONCURRENCY = 32;
/** Posts accepted before memory is first read: the burst's own working set is in place by then. */
const WARM = Math.floor(ALERTS / 10);

const rss = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

describe('a long backlog behind a failing channel', () => {
  let daemon: Daemon | null = null;
  let healthy = false;
  let refused = 0;
  const delivered = new Set<string>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!healthy) {
        refused += 1;
        res.writeHead(503).end();
        return;
      }
      delivered.add(String(req.headers['idempotency-key']));
      res.writeHead(204).end();
    });
  });
  after(async () => {
    await daemon?.stop();
    receiver.closeAllConnections();
    receiver.close();
  });

  it('keeps 40,000 waiting alerts in the store and delivers them all once the receiver is back', async (t) => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    daemon = await startDaemon({
      // 20 tries 1–2 s apart: a round (~40 s) outlasts most bursts, and one that ends only sends its
      // events back to the store for a later round (store.deliveryWindow, 30 min). The short gap is so
      // that the lanes try again within 2 s of the receiver's recovery, not up to 10 s later.
      agentYaml: 'dispatch:\n  maxAttempts: 20\n  initialBackoffMs: 1000\n  maxBackoffMs: 2000',
      channelsYaml: `channels:\n  - id: oncall-hook\n    type: webhook\n    direction: outbound\n    url: ${hook}\n`,
    });
    const pid = daemon.pid();
    const { url, secret } = daemon;
    // Without groupKey every post is a new event: an Alertmanager body with one gets a derived
    // fingerprint (contract §12.2), and 40,000 copies of it would be one event and 39,999 duplicates.
    const { groupKey: _groupKey, ...alert } = JSON.parse(daemon.fixture) as Record<string, unknown>;
    const fixture = JSON.stringify(alert);
    // One alert first, so the daemon is warm (threads up, code compiled) before the baseline is read.
    assert.equal((await fetch(url, { method: 'POST', body: fixture, headers: { 'x-signature': sign(secret, fixture) } })).status, 202);
    await waitFor('the first refused delivery', () => refused > 0);
    let accepted = 0;
    const idle = rss(pid);
    // The highest RSS while 4,000–8,000 alerts wait, and while 36,000–40,000 do: peaks against peaks,
    // so that V8's heap sizing (±5 MiB from one sample to the next) does not count as growth.
    let early = 0;
    let late = 0;
    const sampler = setInterval(() => {
      if (accepted >= WARM && accepted < 2 * WARM) early = Math.max(early, rss(pid));
      if (accepted >= ALERTS - WARM) late = Math.max(late, rss(pid));
    }, 50);

    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const target = new URL(url);
    const headers = { 'content-type': 'application/json', 'x-signature': sign(secret, fixture), 'content-length': String(Buffer.byteLength(fixture)) };
    let sent = 0;
    const post = (): Promise<number> => new Promise((resolve, reject) => {
      const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(fixture);
    });
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (sent < ALERTS) {
        sent += 1;
        if (await post() === 202) accepted += 1;
      }
    }));
    agent.destroy();
    assert.equal(accepted, ALERTS);

    const backlog = await waitFor('the backlog gauge to count the waiting alerts', async () => {
      const value = metricValue(await (await fetch(`${daemon?.cp}/metrics`)).text(), 'svc_dispatch_backlog', { agent: 'oncall-escalator' });
      return value !== undefined && value >= ALERTS ? value : undefined;
    });
    clearInterval(sampler);
    late = Math.max(late, rss(pid));
    assert.ok(backlog >= ALERTS && backlog <= ALERTS + 1, `svc_dispatch_backlog ${backlog}`);
    const mib = (bytes: number): string => (bytes / 1048576).toFixed(1);
    t.diagnostic(`RSS ${mib(idle)} MiB idle, peak ${mib(early)} MiB with ${WARM}–${2 * WARM} waiting, ${mib(late)} MiB with ${ALERTS - WARM}–${backlog}`);
    assert.ok(early > 0 && late - early < 16 * 1048576,
      `RSS grew by ${mib(late - early)} MiB (from ${mib(early)} MiB) while the backlog grew from ${2 * WARM} to ${ALERTS} alerts`);
    assert.equal(delivered.size, 0, 'nothing went out while the receiver refused');

    healthy = true;
    await waitFor('every alert delivered', () => delivered.size === ALERTS + 1, 300_000);
    await waitFor('an empty backlog', async () => metricValue(await (await fetch(`${daemon?.cp}/metrics`)).text(),
      'svc_dispatch_backlog', { agent: 'oncall-escalator' }) === 0);
  });
});
