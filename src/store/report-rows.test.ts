import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedReportReads, reportLine } from '../../test/support/report-reads.js';
import { readReportRows, REPORT_CHUNK_ROWS, reportLineOf } from './report-rows.js';

const line = reportLine;
const reads = (pageLines: string, audit: string[], payloads: Record<string, string> = {}): ReturnType<typeof fixedReportReads> =>
  fixedReportReads(pageLines === '' ? [] : pageLines.split('\n'), audit, payloads);

describe('readReportRows', () => {
  it('reads every chunk to the end, keeps the window\'s pages\' rows and skips lines that are not one row', async () => {
    const audit = Array.from({ length: REPORT_CHUNK_ROWS + 2 }, (_, i) => line(i + 1, 'page.notified', { pageId: i % 2 === 0 ? 'pa' : 'pz', person: 'alice', channel: 'push' }));
    audit.push(`${REPORT_CHUNK_ROWS + 3}\t5\tpage.notified\tpa\tshort`);
    const r = reads('pa\tagent-a\tdefault\t10\nbroken line', audit);
    const rows = await readReportRows(r, { sinceMs: 10, untilMs: 20, agent: null });
    assert.deepEqual(rows.pages, [{ id: 'pa', agentId: 'agent-a', policy: 'default', openedAtMs: 10, alertname: null }]);
    assert.equal(rows.rows.length, Math.ceil((REPORT_CHUNK_ROWS + 2) / 2));
    assert.deepEqual(r.asked, [['first', 10], ['lines', 0, REPORT_CHUNK_ROWS], ['lines', REPORT_CHUNK_ROWS, REPORT_CHUNK_ROWS],
      ['lines', REPORT_CHUNK_ROWS + 3, REPORT_CHUNK_ROWS]]);
  });

  it('takes a page\'s alert name from its first page.opened row, else from its opening event in batches of 500', async () => {
    const pages = Array.from({ length: 600 }, (_, i) => `p${i}\ta\tdefault\t10`).join('\n');
    const audit = [line(1, 'page.opened', { pageId: 'p0', eventId: 'e0', alertname: 'Named' }), line(2, 'page.opened', { pageId: 'p0', alertname: 'Reopened' }),
      ...Array.from({ length: 599 }, (_, i) => line(i + 3, 'page.opened', { pageId: `p${i + 1}`, eventId: `e${i + 1}` }))];
    const r = reads(pages, audit, { e1: '{"commonLabels":{"alertname":"Common"}}', e2: 'not json', e3: '{"labels":{"alertname":"Plain"}}' });
    const rows = await readReportRows(r, { sinceMs: 0, untilMs: 20, agent: null });
    const name = (id: string): string | null | undefined => rows.pages.find((p) => p.id === id)?.alertname;
    assert.deepEqual([name('p0'), name('p1'), name('p2'), name('p3'), name('p4')], ['Named', 'Common', null, 'Plain', null]);
    assert.deepEqual(r.asked.filter((a) => a[0] === 'payloads'), [['payloads', 500], ['payloads', 99]]);
    assert.deepEqual(rows.rows, [], 'page.opened rows name pages; they are not rows of the report');
  });

  it('no page in the window: nothing else is read', async () => {
    const r = reads('', [line(1, 'page.notified', { pageId: 'p' })]);
    assert.deepEqual(await readReportRows(r, { sinceMs: 0, untilMs: 1, agent: null }), { pages: [], rows: [] });
    assert.deepEqual(r.asked, []);
  });
});

describe('reportLineOf', () => {
  it('is the line the SQL builds: text fields only as text, tabs and line breaks as spaces, shadow only when true', () => {
    assert.equal(reportLineOf(7, 99, 'page.notified', JSON.stringify({ pageId: 'p1', person: 'al\tice', channel: 'push\n', reason: 3, kind: 'status', shadow: true, alertname: 'A\r' })),
      '7\t99\tpage.notified\tp1\tal ice\tpush \t\t\tstatus\ttrue\tA \t');
    assert.equal(reportLineOf(7, 99, 'page.notified', '{"shadow":"true"}'), '7\t99\tpage.notified\t\t\t\t\t\t\t\t\t');
    assert.equal(reportLineOf(7, 99, 'page.notified', '[1]'), null);
    assert.equal(reportLineOf(7, 99, 'page.notified', '{"pageId":'), null);
  });
});
