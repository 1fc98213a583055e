import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Report, ReportGroup, ReportMetrics } from '../report/report.js';
import { CSV_COLUMNS, csvField, reportCsv } from './report-csv.js';

const metrics = (pages: number): ReportMetrics => ({ pages, acknowledged: pages, resolved: pages,
  timeToAckSeconds: { count: pages, p50: 1.5, p90: 2, max: 60 }, timeToResolveSeconds: { count: 0, p50: null, p90: null, max: null },
  escalations: { timeout: 1, manual: 0 }, exhausted: 0, flapping: 0, interruptions: { business: 1, offHours: 2, sleep: 3, total: 6 } });
const group = (key: string | null, pages: number): ReportGroup => ({ key, agentId: null, hoursOnCall: null, ...metrics(pages) });

/** RFC 4180 read back: records of fields, quotes undone. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') { field += '"'; i += 2; } else if (text[i] === '"') { i += 1; break; } else field += text[i++];
      }
    } else if (text[i] === ',') { record.push(field); field = ''; i += 1; } else if (text.startsWith('\r\n', i)) {
      record.push(field); records.push(record); record = []; field = ''; i += 2;
    } else field += text[i++];
  }
  return records;
}

it('csvField quotes a comma, a quote and a line break, doubling quotes; leaves the rest alone', () => {
  assert.deepEqual(['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', ''].map(csvField),
    ['plain', '"a,b"', '"say ""hi"""', '"two\nlines"', '"cr\rhere"', '']);
});

it('reportCsv: a header, the total, a row per group; CRLF; names from outside quoted and defused, and read back whole', () => {
  const report: Report = { since: 's', until: 'u', agent: null, by: 'alert', totals: metrics(5), groupsLeftOut: 0, people: [], alerts: [],
    groups: [group('Disk, "full"\non db-1', 3), group('=HYPERLINK("http://evil")', 1), group(null, 1)] };
  const text = reportCsv(report);
  assert.ok(text.endsWith('\r\n'));
  assert.equal(text.split('\r\n').length, 6, 'header, total, three groups and the final CRLF (the one inside a field is a bare LF)');
  const records = parseCsv(text);
  assert.deepEqual(records[0], [...CSV_COLUMNS]);
  assert.ok(records.every((r) => r.length === CSV_COLUMNS.length), 'every record has every column');
  assert.deepEqual(records[1], ['total', '', '', '5', '5', '5', '1.5', '2', '60', '', '', '', '1', '0', '0', '0', '1', '2', '3', '6', '']);
  assert.deepEqual(records.slice(2).map((r) => [r[0], r[1], r[3]]), [['alert', 'Disk, "full"\non db-1', '3'], ['alert', '\'=HYPERLINK("http://evil")', '1'],
    ['alert', '', '1']]);
});
