/**
 * Acknowledgements racing escalations (contract §17.4, §18.2, §18.6; issues 21 and 22). One real
 * daemon (SQLite, file channel, a slack channel on a zero-latency local Slack API, an ack-link source
 * and a Slack interactivity source) holds 3 × N open pages whose next step comes due at 100 a second.
 * Each third is acknowledged while its timers fall due, in page order:
 *
 *   - through the admin socket, as `svc ack` does (8 in flight; latency measured by the client);
 *   - by one-time ack links: POST /ack/<token>, from wrk in its own process (8 connections);
 *   - by signed Slack button clicks (v0 signature, form body payload=<block_actions JSON>), from wrk.
 *
 * Both HTTP answers come after the acknowledgement has committed (§18.2: stored before the 200), so
 * wrk's latency is click → page acknowledged. The baseline, same daemon, same wrk settings: N plain
 * signed ingest POSTs (stored, answered 202). wrk's ceiling against a bare POST server shows the
 * generator's headroom. Afterwards the audit trail is read: `page.notified` and `page.escalated` rows
 * of a page after its `page.acknowledged` row must be 0 (§17.4). Also counted: `message.delivered` rows
 * after the ack row, and file lines stamped after it — escalations claimed from the outbox before the
 * ack committed (the claim cancels those of acknowledged pages) and still in flight when it did.
 *
 *   npm run build && node --import tsx bench/oncall-acks.ts [pagesPerWay=1000]
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { adminRequest } from '../src/cli/admin-client.js';
import { homePaths } from '../src/config/paths.js';
import { systemClock } from '../src/core/clock.js';
import { mintAckToken } from '../src/oncall/ack-token.js';
import { bareServer, r3, signedAlert } from './lib/daemon.js';
import { AGENT, SLACK_USER, afterAck, auditOf, oncallDaemon, pageWriter, percentile } from './lib/oncall.js';
import type { SequencedRequest } from './lib/wrk-sequence.js';
import { runWrkSequence } from './lib/wrk-sequence.js';

const N = Number(process.argv[2] ?? 1000);
const CONNECTIONS = 8;
const PER_SECOND = 100;
/** Between one way's timers and the next: the previous way has finished by then on a loaded host. */
const GAP_MS = Math.max(20_000, (N / PER_SECOND) * 2000);
const note = (line: string): void => { process.stderr.write(`oncall-acks: ${line}\n`); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Slack's Web API, answering ok at once (chat.postMessage, chat.update, conversations.open, response_url). */
const slackCalls = { ephemeral: [] as string[] };
const slack = createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => { raw += c.toString(); });
  req.on('end', () => {
    if (req.url === '/response') slackCalls.ephemeral.push(raw);
    const reply = req.url?.endsWith('conversations.open') ? { ok: true, channel: { id: 'D0ALICE' } } : { ok: true, channel: 'D0ALICE', ts: '1700000000.000100' };
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(reply));
  });
});
await new Promise<void>((r) => slack.listen(0, '127.0.0.1', () => r()));
const slackBase = `http://127.0.0.1:${(slack.address() as AddressInfo).port}`;

const d = await oncallDaemon({ oncall: { firstAfter: '1h', secondAfter: '1h' }, ack: true, slackApi: `${slackBase}/api` });
try {
  // The generator's ceiling first, on an idle host: N POSTs to a bare server.
  const { body: alertBody, headers: alertHeaders } = signedAlert(d.dir, d.secret);
  const plain: SequencedRequest[] = Array.from({ length: N }, () => ({ method: 'POST', path: '/webhooks/alertmanager', headers: alertHeaders, body: alertBody }));
  const bare = await bareServer('post');
  const ceiling = await runWrkSequence({ base: bare.url, requests: plain, connections: CONNECTIONS });
  await bare.stop();

  const writer = await pageWriter(d);
  const start = Date.now() + 20_000 + N * 15;
  const dues = (k: number): number[] => Array.from({ length: N }, (_, i) => start + k * GAP_MS + (i * 1000) / PER_SECOND);
  const cliPages = await writer.open(dues(0));
  const linkPages = await writer.open(dues(1));
  const slackPages = await writer.open(dues(2));
  await writer.close();
  note(`${3 * N} pages written; the first timers fall due in ${Math.round((start - Date.now()) / 1000)} s`);
  await d.start();

  // 1. The admin socket, as `svc ack` does.
  await sleep(Math.max(0, start - Date.now()));
  const socket = homePaths(d.home).adminSocket;
  const cliLatencies: number[] = [];
  let cliRefused = 0;
  let next = 0;
  const t1 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < cliPages.length) {
      const page = cliPages[next++] as string;
      const t = performance.now();
      const answer = await adminRequest(socket, { op: 'page.act', page, action: 'ack', user: 'bench', as: 'alice' }, { clock: systemClock, timeoutMs: 60_000 });
      cliLatencies.push(performance.now() - t);
      if (answer === null || !answer.ok) cliRefused += 1;
    }
  }));
  const cliSeconds = (performance.now() - t1) / 1000;
  note(`admin socket: ${N} acks in ${r3(cliSeconds)} s`);

  // 2. One-time ack links, POSTed by wrk.
  await sleep(Math.max(0, start + GAP_MS - Date.now()));
  const expiresAtMs = Date.now() + 3_600_000;
  const ackBase = d.ackBase as string;
  const links = await runWrkSequence({ base: new URL(ackBase).origin, connections: CONNECTIONS, requests: linkPages.map((pageId) => ({ method: 'POST',
    path: `/ack/${mintAckToken({ agentId: AGENT, pageId, person: 'alice', action: 'ack', expiresAtMs, incarnation: 0 }, d.secret)}`,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'confirm=1' })) });
  note(`ack links: ${links.requests} POSTs in ${r3(links.seconds)} s`);

  // 3. Signed Slack button clicks, POSTed by wrk.
  await sleep(Math.max(0, start + 2 * GAP_MS - Date.now()));
  const ts = String(Math.floor(Date.now() / 1000));
  const slackUrl = new URL(d.slackUrl as string);
  const clicks = await runWrkSequence({ base: slackUrl.origin, connections: CONNECTIONS, requests: slackPages.map((pageId) => {
    const body = `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', user: { id: SLACK_USER, username: 'alice' },
      response_url: `${slackBase}/response`, actions: [{ type: 'button', action_id: 'svc_ack', block_id: 'page', value: pageId, action_ts: `${ts}.000200` }] }))}`;
    return { method: 'POST', path: slackUrl.pathname, body, headers: { 'Content-Type': 'application/x-www-form-urlencoded',
      'X-Slack-Request-Timestamp': ts, 'X-Slack-Signature': `v0=${createHmac('sha256', d.secret).update(`v0:${ts}:${body}`).digest('hex')}` } };
  }) });
  note(`slack clicks: ${clicks.requests} POSTs in ${r3(clicks.seconds)} s`);

  // 4. The baseline: plain signed ingest, same wrk, same connections.
  const ingest = await runWrkSequence({ base: new URL(d.ingestUrl).origin, connections: CONNECTIONS, requests: plain });
  note(`plain ingest: ${ingest.requests} POSTs in ${r3(ingest.seconds)} s`);

  await sleep(5_000); // the outbox drains what the escalations before the acks committed
  await d.stop();
  const rows = auditOf(d, ['page.acknowledged', 'page.notified', 'page.escalated', 'message.delivered']);
  // The file channel stamps each line when it sends it: escalation lines stamped after the page's
  // ack row (whose time is taken as the ack's transaction starts, before its commit).
  const ackAt = new Map(rows.filter((r) => r.kind === 'page.acknowledged' && r.pageId !== null).map((r) => [r.pageId as string, r.tsMs]));
  const msAfterAck = readFileSync(join(d.dir, 'out', 'oncall-dm.jsonl'), 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as { ts: string; pageId?: string; status: string })
    .filter((l) => l.pageId !== undefined && l.status === 'firing').map((l) => Date.parse(l.ts) - (ackAt.get(l.pageId as string) ?? Infinity))
    .filter((ms) => ms > 0);
  const acked = (ids: readonly string[], via: string): number => {
    const set = new Set(ids);
    return rows.filter((r) => r.kind === 'page.acknowledged' && r.pageId !== null && set.has(r.pageId) && r.data.via === via).length;
  };
  const escalatedFirst = (ids: readonly string[]): number => {
    const set = new Set(ids);
    return new Set(rows.filter((r) => r.kind === 'page.escalated' && r.pageId !== null && set.has(r.pageId)).map((r) => r.pageId)).size;
  };
  const result = {
    bench: 'oncall-acks', pagesPerWay: N, connections: CONNECTIONS, duePerSecond: PER_SECOND,
    cli: { acked: acked(cliPages, 'cli'), refused: cliRefused, escalatedBeforeAck: escalatedFirst(cliPages), perS: Math.round(N / cliSeconds),
      p50Ms: r3(percentile(cliLatencies, 50)), p99Ms: r3(percentile(cliLatencies, 99)) },
    link: { acked: acked(linkPages, 'link'), escalatedBeforeAck: escalatedFirst(linkPages), perS: Math.round(links.rps), p50Ms: links.p50Ms, p99Ms: links.p99Ms, errors: links.errors },
    slack: { acked: acked(slackPages, 'slack'), escalatedBeforeAck: escalatedFirst(slackPages), perS: Math.round(clicks.rps), p50Ms: clicks.p50Ms, p99Ms: clicks.p99Ms, errors: clicks.errors },
    ingest: { perS: Math.round(ingest.rps), p50Ms: ingest.p50Ms, p99Ms: ingest.p99Ms, errors: ingest.errors },
    linkP99Ratio: r3(links.p99Ms / ingest.p99Ms), slackP99Ratio: r3(clicks.p99Ms / ingest.p99Ms),
    linkP50Ratio: r3(links.p50Ms / ingest.p50Ms), slackP50Ratio: r3(clicks.p50Ms / ingest.p50Ms),
    generatorCeilingPerS: Math.round(ceiling.rps), generatorHeadroom: r3(ceiling.rps / Math.max(links.rps, clicks.rps, ingest.rps)),
    notifiedAfterAck: afterAck(rows, ['page.notified']), escalatedAfterAck: afterAck(rows, ['page.escalated']),
    deliveredAfterAck: afterAck(rows, ['message.delivered']), fileLinesStampedAfterAck: msAfterAck.length,
    fileLinesAfterAckMs: { p50: percentile(msAfterAck, 50), max: msAfterAck.length === 0 ? 0 : Math.max(...msAfterAck) },
    // A click refused for a reason (page kept changing, unknown page) is told ephemerally through response_url.
    slackRefusals: slackCalls.ephemeral.length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`oncall-acks: ${N} pages a way, timers due at ${PER_SECOND}/s while acks arrive; page.notified after page.acknowledged: `
    + `${result.notifiedAfterAck} (target 0), page.escalated after it: ${result.escalatedAfterAck}; admin socket ack p50/p99 ${result.cli.p50Ms}/${result.cli.p99Ms} ms; `
    + `ack link ${links.p50Ms}/${links.p99Ms} ms, Slack click ${clicks.p50Ms}/${clicks.p99Ms} ms vs plain ingest ${ingest.p50Ms}/${ingest.p99Ms} ms `
    + `(p99 ${result.linkP99Ratio}× and ${result.slackP99Ratio}×); wrk's ceiling ${result.generatorCeilingPerS}/s (${result.generatorHeadroom}× the fastest)\n`);
  const allAcked = result.cli.acked === N && result.link.acked === N && result.slack.acked === N;
  if (!allAcked || result.notifiedAfterAck > 0 || result.escalatedAfterAck > 0) process.exitCode = 1;
} finally {
  await d.stop();
  d.cleanup();
  slack.close();
}
