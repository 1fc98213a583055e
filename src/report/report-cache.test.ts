import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { fixedReportReads, keptReportFacts, reportLine } from '../../test/support/report-reads.js';
import { readReportRows, REPORT_CHUNK_ROWS } from '../store/report-rows.js';
import type { ReportWindow } from '../store/report-rows.js';
import type { PageFacts } from './page-facts.js';
import { FACTS_VERSION, pageFacts } from './page-facts.js';
import { FACTS_SAVE_EVERY_MS, KEPT_MS, reportFactsCache } from './report-cache.js';

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

  describe('its checkpoint', () => {
    /** A chain of pages p1…pN (opened, a round each) that tests append to. */
    const chain = (n: number): { pages: string[]; audit: string[]; add: (kind: string, data: Record<string, unknown>) => number } => {
      const pages: string[] = [];
      const audit: string[] = [];
      let seq = 0;
      const add = (kind: string, data: Record<string, unknown>): number => {
        audit.push(reportLine(seq += 1, kind, data));
        return seq;
      };
      for (let i = 1; i <= n; i++) {
        const id = `p${i}`;
        pages.push(`${id}\tagent-a\tdefault\t${1000 + seq + 1}`);
        add('page.opened', { pageId: id, alertname: `A${i}` });
        add('page.notified', { pageId: id, person: 'alice', channel: 'push', kind: 'escalation' });
      }
      return { pages, audit, add };
    };

    it('is saved whole after the first fold, then the pages changed since, at most every FACTS_SAVE_EVERY_MS and only when something changed', async () => {
      const { pages, audit, add } = chain(3);
      const clock = fakeClock(NOW);
      const kept = keptReportFacts();
      const cache = reportFactsCache(fixedReportReads(pages, audit), clock, { checkpoints: kept });
      await cache.refresh();
      assert.deepEqual(kept.saves.map((s) => [s.full, s.pages.map((p) => p.pageId).sort(), s.mark.seq, s.mark.version, s.keepFromMs]),
        [[true, ['p1', 'p2', 'p3'], 6, FACTS_VERSION, NOW - KEPT_MS]]);
      add('page.acknowledged', { pageId: 'p2', via: 'cli' });
      clock.advance(FACTS_SAVE_EVERY_MS - 1);
      await cache.windowFacts(all);
      await cache.refresh();
      assert.equal(kept.saves.length, 1, 'not due yet');
      clock.advance(1);
      const seq = add('page.resolved', { pageId: 'p3', via: 'source' });
      await cache.windowFacts(all);
      await cache.refresh();
      assert.deepEqual(kept.saves.slice(1).map((s) => [s.full, s.pages.map((p) => p.pageId).sort(), s.mark.seq]), [[false, ['p2', 'p3'], seq]]);
      clock.advance(FACTS_SAVE_EVERY_MS);
      await cache.refresh();
      assert.equal(kept.saves.length, 2, 'nothing changed: nothing saved');
      // A save that fails leaves its pages to the next one.
      add('page.acknowledged', { pageId: 'p1', via: 'cli' });
      kept.fail = 1;
      await cache.refresh();
      const last = add('page.exhausted', { pageId: 'p2' });
      clock.advance(FACTS_SAVE_EVERY_MS);
      await cache.refresh();
      assert.deepEqual(kept.saves.slice(2).map((s) => [s.pages.map((p) => p.pageId).sort(), s.mark.seq]), [[['p1'], last - 1], [['p1', 'p2'], last]]);
      assert.equal(kept.mark?.seq, last);
    });

    it('a restart starts from it; a page whose saved facts do not decode is folded afresh from its rows, and saved again', async () => {
      const { pages, audit, add } = chain(3);
      const clock = fakeClock(NOW);
      const kept = keptReportFacts();
      await reportFactsCache(fixedReportReads(pages, audit), clock, { checkpoints: kept }).refresh();
      add('page.acknowledged', { pageId: 'p2', via: 'cli' });
      add('page.notified', { pageId: 'p2', person: 'alice', channel: 'push' });
      const p2 = kept.rows.get('p2');
      assert.ok(p2 !== undefined);
      kept.rows.set('p2', { ...p2, facts: p2.facts.slice(0, 20) });
      kept.rows.set('p3', { ...(kept.rows.get('p3') as typeof p2), facts: '{"a":"agent-a"}' });

      const reads = fixedReportReads(pages, audit);
      const restarted = reportFactsCache(reads, clock, { checkpoints: kept });
      const facts = sorted(await restarted.windowFacts(all) ?? []);
      assert.deepEqual(facts, sorted(pageFacts(await readReportRows(reads, all)).values()), 'what a fresh fold of the rows says');
      assert.deepEqual(facts.map((f) => [f.page.id, f.page.alertname, f.ackMs, f.rounds.length]), [['p1', 'A1', null, 1], ['p2', 'A2', 4, 1], ['p3', 'A3', null, 1]]);
      // The broken pages' lines by id, their rows from the first one's opening to the mark, then every row after the mark.
      const asked = reads.asked.filter((a) => a[0] !== 'payloads');
      assert.deepEqual(asked.slice(0, 4), [['pagesOf', ['p2', 'p3']], ['first', 1003], ['lines', 2, REPORT_CHUNK_ROWS], ['lines', 6, REPORT_CHUNK_ROWS]]);
      clock.advance(FACTS_SAVE_EVERY_MS);
      await restarted.refresh();
      assert.deepEqual(kept.saves.at(-1)?.pages.map((p) => p.pageId).sort(), ['p2', 'p3'], 'the pages folded afresh are saved again');
      const again = reportFactsCache(fixedReportReads(pages, audit), clock, { checkpoints: kept });
      assert.deepEqual(sorted(await again.windowFacts(all) ?? []), facts);
    });
  });
});
