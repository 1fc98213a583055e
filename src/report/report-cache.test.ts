import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { fixedReportReads, reportLine } from '../../test/support/report-reads.js';
import { readReportRows, REPORT_CHUNK_ROWS } from '../store/report-rows.js';
import type { ReportWindow } from '../store/report-rows.js';
import type { PageFacts } from './page-facts.js';
import { pageFacts } from './page-facts.js';
import { KEPT_MS, reportFactsCache } from './report-cache.js';

const DAY = 86_400_000;
/** Lines' ts are 1000 + seq: the clock stands a little after them. */
const NOW = 10 * DAY;
const all: ReportWindow = { sinceMs: 0, untilMs: NOW, agent: null };
const page = (id: string, agent = 'agent-a'): string => `${id}\t${agent}\tdefault\t${1000 + Number(id.slice(1))}`;
const sorted = (facts: Iterable<PageFacts>): PageFacts[] => [...facts].sort((a, b) => a.page.id.localeCompare(b.page.id));

describe('the report cache', () => {
  it('folds what was appended since its last read, and says what a whole read and fold of the rows says', async () => {
    const pages: string[] = [];
    const audit: string[] = [];
    let seq = 0;
    const add = (kind: string, data: Record<string, unknown>): void => { audit.push(reportLine(seq += 1, kind, data)); };
    const open = (id: string, alertname: string | null, agent = 'agent-a'): void => {
      seq += 1;
      pages.push(`${id}\t${agent}\tdefault\t${1000 + seq}`);
      audit.push(reportLine(seq, 'page.opened', { pageId: id, ...(alertname === null ? { eventId: `e-${id}` } : { alertname }) }));
    };
    const reads = fixedReportReads(pages, audit, { 'e-p5': '{"commonLabels":{"alertname":"FromEvent"}}' });
    const cache = reportFactsCache(reads, fakeClock(NOW));
    const same = async (window: ReportWindow): Promise<void> => {
      assert.deepEqual(sorted(await cache.windowFacts(window) ?? []), sorted(pageFacts(await readReportRows(reads, window)).values()));
    };

    open('p1', 'Disk');
    add('page.notified', { pageId: 'p1', person: 'alice', channel: 'push', kind: 'escalation' });
    await same(all);
    // Rows of a known page and a page new since (its line read by id, once), an ack and its notice, a legacy round.
    add('page.acknowledged', { pageId: 'p1', via: 'cli' });
    add('page.notified', { pageId: 'p1', person: 'alice', channel: 'push' });
    open('p5', null, 'agent-b');
    add('page.notified', { pageId: 'p5', person: 'bob', channel: 'push', kind: 'escalation' });
    add('page.opened', { pageId: 'p1', alertname: 'Reopened' });
    const before = reads.asked.length;
    await cache.windowFacts(all);
    assert.deepEqual(reads.asked.slice(before).filter((a) => a[0] !== 'payloads'),
      [['lines', 2, REPORT_CHUNK_ROWS], ['pagesOf', ['p5']], ['lines', 7, REPORT_CHUNK_ROWS]], 'only what is new is read');
    await same(all);
    add('page.resolved', { pageId: 'p5', via: 'source' });
    await same(all);
    await same({ ...all, agent: 'agent-b' });
    await same({ sinceMs: 1000 + 5, untilMs: NOW, agent: null });
    const facts = sorted(await cache.windowFacts(all) ?? []);
    assert.deepEqual(facts.map((f) => [f.page.id, f.page.alertname, f.ackMs, f.resolveMs, f.rounds.length]),
      [['p1', 'Disk', 2, null, 1], ['p5', 'FromEvent', null, 3, 1]]);
  });

  it('reads a long chain in chunks; a window before what it keeps is not its to answer', async () => {
    const audit = [reportLine(1, 'page.opened', { pageId: 'p1', alertname: 'A' }),
      ...Array.from({ length: REPORT_CHUNK_ROWS + 1 }, (_, i) => reportLine(i + 2, 'page.notified', { pageId: 'p1', person: 'alice', channel: 'push' }))];
    const reads = fixedReportReads([page('p1')], audit);
    const cache = reportFactsCache(reads, fakeClock(NOW));
    assert.equal((await cache.windowFacts(all))?.[0]?.rounds.length, REPORT_CHUNK_ROWS + 1);
    assert.deepEqual(reads.asked.filter((a) => a[0] === 'lines').map((a) => a[1]), [0, REPORT_CHUNK_ROWS, REPORT_CHUNK_ROWS + 2]);
    assert.equal(await cache.windowFacts({ sinceMs: NOW - KEPT_MS - 1, untilMs: NOW, agent: null }), null);
  });

  it('lets pages go once no window it answers can hold them', async () => {
    const clock = fakeClock(NOW);
    const reads = fixedReportReads([page('p1')], [reportLine(1, 'page.opened', { pageId: 'p1', alertname: 'A' })]);
    const cache = reportFactsCache(reads, clock);
    assert.equal((await cache.windowFacts(all))?.length, 1);
    clock.advance(KEPT_MS);
    assert.equal(await cache.windowFacts(all), null);
    assert.deepEqual(await cache.windowFacts({ sinceMs: NOW, untilMs: NOW + KEPT_MS, agent: null }), []);
  });
});
