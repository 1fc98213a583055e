import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { fixedReportReads, keptReportFacts, reportLine } from '../../test/support/report-reads.js';
import { FACTS_RETRY_MS, FACTS_WARM_AFTER_MS, startFactsWarmer } from './facts-warmer.js';
import { FACTS_SAVE_EVERY_MS, reportFactsCache } from './report-cache.js';

const NOW = 10 * 86_400_000;

describe('the report facts warmer', () => {
  it('folds, saves and primes the default report soon after the start with no report asked, then folds and saves every FACTS_SAVE_EVERY_MS; a failure is logged and tried again; close stops it', async () => {
    const clock = fakeClock(NOW);
    const audit = [reportLine(1, 'page.opened', { pageId: 'p1', alertname: 'A' })];
    const reads = fixedReportReads(['p1\tagent-a\tdefault\t1001'], audit);
    let down = false;
    const lines = reads.auditLines.bind(reads);
    reads.auditLines = (after, limit) => (down ? Promise.reject(new Error('connection refused')) : lines(after, limit));
    const kept = keptReportFacts();
    const logged: Array<[string, string, Record<string, unknown>]> = [];
    let primed = 0;
    const warmer = startFactsWarmer({ facts: reportFactsCache(reads, clock, { checkpoints: kept }), clock,
      log: (level, event, fields) => logged.push([level, event, fields]), prime: () => { primed += 1; return Promise.resolve(); } });
    await clock.advanceAsync(FACTS_WARM_AFTER_MS - 1);
    assert.equal(kept.saves.length, 0);
    await clock.advanceAsync(1);
    assert.deepEqual(kept.saves.map((s) => [s.full, s.mark.seq]), [[true, 1]]);
    assert.equal(primed, 1, 'the default report computed after the catch-up');

    audit.push(reportLine(2, 'page.acknowledged', { pageId: 'p1', via: 'cli' }));
    down = true;
    await clock.advanceAsync(FACTS_SAVE_EVERY_MS);
    assert.deepEqual(logged.map(([level, event, f]) => [level, event, f.error]), [['warn', 'report.facts.refresh-failed', 'connection refused']]);
    down = false;
    await clock.advanceAsync(FACTS_RETRY_MS);
    assert.deepEqual(kept.saves.map((s) => [s.full, s.mark.seq]), [[true, 1], [false, 2]]);
    assert.equal(primed, 1, 'once: later reports work out only new pages\' interruptions');

    await warmer.close();
    audit.push(reportLine(3, 'page.resolved', { pageId: 'p1', via: 'cli' }));
    const asked = reads.asked.length;
    await clock.advanceAsync(10 * FACTS_SAVE_EVERY_MS);
    assert.equal(reads.asked.length, asked, 'closed: nothing read after');
  });
});
