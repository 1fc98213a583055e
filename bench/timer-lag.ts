/**
 * Does a channel that never answers hold the pager's timers (issue 33, "Nothing stops the pager";
 * contract §17.4)? A real daemon (SQLite) holds pages whose escalations come due over a window, 20 a
 * second; each escalation pages bob on two channels: the template's file channel `oncall-dm` and a
 * Slack channel `slack-dm`. In the black-holed run Slack's API is a TCP server in this process that
 * accepts every connection and never answers a byte (each send waits out its 10 s deadline); in the
 * baseline run it is the local fake Slack Web API (test/support/fake-slack.ts), answering at once.
 * Same daemon, same pages, same channels otherwise; runs alternate, black hole first.
 *
 * Timer lag, exactly: each `page.escalated` audit row's commit time minus its page's due time (p50,
 * p99, max) — the ratio black-holed / baseline is the figure. Also: the file channel's messages of
 * those escalations, delivered − due (`message.delivered` of `oncall-dm`), which must keep going while
 * Slack's sends fill their own slots (maxPerChannel).
 *
 *   npm run build && node --import tsx bench/timer-lag.ts [windowSeconds=30] [rounds=1]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { r3 } from './lib/daemon.js';
import { auditRowsOf, oncallDaemon, pageWriter, percentile } from './lib/oncall.js';
import { startFakeSlack } from '../test/support/fake-slack.js';

const WINDOW_S = Number(process.argv[2] ?? 30);
const ROUNDS = Number(process.argv[3] ?? 1);
const PER_SECOND = 20;
const note = (line: string): void => { process.stderr.write(`timer-lag: ${line}\n`); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Accepts connections and never answers: what a vendor behind a dropped route looks like to a channel. */
async function blackHole(): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    connections: () => accepted,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

interface Run { due: number; fired: number; lagP50Ms: number; lagP99Ms: number; lagMaxMs: number; fileDelivered: number; fileP99Ms: number; slack: string }

async function run(black: boolean): Promise<Run> {
  const hole = black ? await blackHole() : null;
  const slack = black ? null : await startFakeSlack('xoxb-bench-0000000000-not-a-secret');
  const d = await oncallDaemon({ oncall: { firstAfter: '1h', secondAfter: '1h' }, slackApi: hole?.url ?? slack?.apiUrl ?? '' });
  try {
    // bob, whom the escalations page, has a Slack id too: each escalation is one message per channel.
    const yaml = join(d.dir, 'oncall.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('{ id: bob, contacts: { oncall-dm: bob } }', '{ id: bob, contacts: { oncall-dm: bob, slack-dm: U0BOB } }'));
    const writer = await pageWriter(d);
    const due = PER_SECOND * WINDOW_S;
    const windowStart = Date.now() + 20_000;
    const dueAt = Array.from({ length: due }, (_, i) => windowStart + Math.floor((i * 1000) / PER_SECOND));
    const ids = await writer.open(dueAt);
    await writer.close();
    const dueOf = new Map(ids.map((id, i) => [id, dueAt[i] ?? 0]));
    await d.start();
    note(`${black ? 'black-holed Slack' : 'answering Slack'}: ${due} escalations due from ${Math.round((windowStart - Date.now()) / 1000)} s`);
    await sleep(Math.max(0, windowStart - Date.now()) + WINDOW_S * 1000 + 15_000);
    await d.stop();
    const fired = (await auditRowsOf(d, 'page.escalated')).filter((r) => r.pageId !== null && dueOf.has(r.pageId))
      .map((r) => r.tsMs - (dueOf.get(r.pageId as string) ?? 0));
    const fileLags = (await auditRowsOf(d, 'message.delivered'))
      .filter((r) => r.pageId !== null && dueOf.has(r.pageId) && r.data.channelId === 'oncall-dm' && r.data.person === 'bob')
      .map((r) => r.tsMs - (dueOf.get(r.pageId as string) ?? 0));
    return { due, fired: fired.length, lagP50Ms: percentile(fired, 50), lagP99Ms: percentile(fired, 99), lagMaxMs: Math.max(...fired),
      fileDelivered: fileLags.length, fileP99Ms: percentile(fileLags, 99),
      slack: hole !== null ? `${hole.connections()} connections held unanswered` : `${slack?.calls.length ?? 0} Web API calls answered` };
  } finally {
    await d.stop();
    d.cleanup();
    await hole?.close();
    await slack?.close();
  }
}

const rounds: Array<{ black: Run; baseline: Run; lagP99Ratio: number; lagP50Ratio: number }> = [];
for (let i = 0; i < ROUNDS; i++) {
  const black = await run(true);
  const baseline = await run(false);
  rounds.push({ black, baseline, lagP99Ratio: r3(black.lagP99Ms / Math.max(baseline.lagP99Ms, 1)),
    lagP50Ratio: r3(black.lagP50Ms / Math.max(baseline.lagP50Ms, 1)) });
}
process.stdout.write(`${JSON.stringify({ bench: 'timer-lag', windowSeconds: WINDOW_S, duePerSecond: PER_SECOND, rounds })}\n`);
for (const r of rounds) {
  process.stdout.write(`timer-lag: ${r.black.due} escalations at ${PER_SECOND}/s; lag p50/p99/max black-holed ${r.black.lagP50Ms}/${r.black.lagP99Ms}/${r.black.lagMaxMs} ms `
    + `(${r.black.slack}) vs answering ${r.baseline.lagP50Ms}/${r.baseline.lagP99Ms}/${r.baseline.lagMaxMs} ms: p99 ${r.lagP99Ratio}×, p50 ${r.lagP50Ratio}×; `
    + `the file channel delivered ${r.black.fileDelivered}/${r.black.due} (p99 ${r.black.fileP99Ms} ms after due) vs ${r.baseline.fileDelivered}/${r.baseline.due} `
    + `(p99 ${r.baseline.fileP99Ms} ms)\n`);
  if (r.black.fired < r.black.due || r.baseline.fired < r.baseline.due) process.exitCode = 1;
}
