/**
 * What does an oncall.yaml add before the first person hears of an alert (contract §17.3–§17.4,
 * issue 21)? Two real daemons in the same run (SQLite, file channel), the same signed alert: one with
 * an oncall.yaml (the alert opens a page, whose first round notifies alice), one without (the
 * channel's own recipient is sent the message, §9.4). Alerts go one at a time, alternating between
 * the two, each waited for before the next. Times are read from the audit trail against the moment
 * the POST started: → `page.notified` committed, → `message.delivered` (the file line written), and
 * for the plain daemon → `message.delivered`. Sequential single requests, so no load generator.
 *
 *   npm run build && node --import tsx bench/oncall-first-notice.ts [alertsEach=30]
 */
import { r3, signedAlert } from './lib/daemon.js';
import type { AuditLite, OncallBenchDaemon } from './lib/oncall.js';
import { auditOf, oncallDaemon, percentile } from './lib/oncall.js';

const ROUNDS = Number(process.argv[2] ?? 30);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** POSTs the alert; resolves with its event id and the wall-clock instant the POST began. */
async function post(d: OncallBenchDaemon): Promise<{ eventId: string; startMs: number }> {
  const { body, headers } = signedAlert(d.dir, d.secret);
  const startMs = Date.now();
  const res = await fetch(d.ingestUrl, { method: 'POST', body, headers });
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}`);
  return { eventId: ((await res.json()) as { eventId: string }).eventId, startMs };
}

async function deliveredRow(d: OncallBenchDaemon, eventId: string): Promise<AuditLite> {
  for (let i = 0; i < 6000; i++) {
    const row = auditOf(d, ['message.delivered']).find((r) => r.data.eventId === eventId);
    if (row !== undefined) return row;
    await sleep(10);
  }
  throw new Error(`event ${eventId} was not delivered within 60 s`);
}

const paged = await oncallDaemon({ oncall: { firstAfter: '1h', secondAfter: '1h' } });
const plain = await oncallDaemon({});
try {
  await paged.start();
  await plain.start();
  // One of each first: the first request of a fresh daemon pays for warm-up, not for pages.
  await deliveredRow(paged, (await post(paged)).eventId);
  await deliveredRow(plain, (await post(plain)).eventId);
  const toNotified: number[] = [];
  const toPagedDelivered: number[] = [];
  const toPlainDelivered: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const a = await post(paged);
    const delivered = await deliveredRow(paged, a.eventId);
    const rows = auditOf(paged, ['page.opened', 'page.notified']);
    const pageId = rows.find((r) => r.kind === 'page.opened' && r.data.eventId === a.eventId)?.pageId;
    const notified = rows.find((r) => r.kind === 'page.notified' && r.pageId === pageId);
    if (notified === undefined) throw new Error(`no page.notified for event ${a.eventId}`);
    toNotified.push(notified.tsMs - a.startMs);
    toPagedDelivered.push(delivered.tsMs - a.startMs);
    const b = await post(plain);
    toPlainDelivered.push((await deliveredRow(plain, b.eventId)).tsMs - b.startMs);
  }
  const q = (xs: number[]): { p50: number; p99: number } => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });
  const n = q(toNotified);
  const pd = q(toPagedDelivered);
  const pl = q(toPlainDelivered);
  const result = {
    bench: 'oncall-first-notice', alertsEach: ROUNDS,
    pagedNotifiedMs: n, pagedDeliveredMs: pd, plainDeliveredMs: pl,
    deliveredP50Ratio: r3(pd.p50 / pl.p50), deliveredP99Ratio: r3(pd.p99 / pl.p99), notifiedP50Ratio: r3(n.p50 / pl.p50), target: 1.2,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`oncall-first-notice: alert POST → first page notice written (file channel) p50/p99 ${pd.p50}/${pd.p99} ms `
    + `(page.notified committed ${n.p50}/${n.p99} ms) vs the same alert without oncall.yaml ${pl.p50}/${pl.p99} ms: `
    + `${result.deliveredP50Ratio}× p50, ${result.deliveredP99Ratio}× p99 (target ≤ 1.2), ${ROUNDS} alerts each, alternating\n`);
} finally {
  await paged.stop();
  await plain.stop();
  paged.cleanup();
  plain.cleanup();
}
