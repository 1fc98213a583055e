import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Report, ReportGroup } from '../report/report.js';
import { humanDuration } from '../report/human-duration.js';
import { reportText } from './report-table.js';

const metrics = { pages: 12, acknowledged: 10, resolved: 11, timeToAckSeconds: { count: 10, p50: 72, p90: 270, max: 1380 },
  timeToResolveSeconds: { count: 11, p50: 1080, p90: 7800, max: 273_600 }, escalations: { timeout: 3, manual: 1 }, exhausted: 1, flapping: 4,
  interruptions: { business: 6, offHours: 3, sleep: 2, total: 11 } };
const group = (key: string | null, hoursOnCall: number | null): ReportGroup => ({ key, agentId: 'oncall-escalator', hoursOnCall, ...metrics });
const base: Report = { since: '2026-10-30T12:00:00.000Z', until: '2026-11-29T12:00:00.000Z', agent: null, by: null, totals: metrics, groups: [], groupsLeftOut: 0,
  people: [{ agentId: 'oncall-escalator', person: 'alice-longer-name', name: null, timeZone: 'America/Argentina/Buenos_Aires',
    interruptions: { business: 6, offHours: 3, sleep: 2, total: 11 }, hoursOnCall: 360.5 }],
  alerts: [{ alertname: 'KubePersistentVolumeFillingUpInTheNextFourDays', pages: 7, flapping: 4 }, { alertname: null, pages: 1, flapping: 0 }] };

describe('svc report as a person reads it', () => {
  it('durations in the units a person uses', () => {
    assert.deepEqual([0.42, 45, 72, 3600, 7800, 273_600, 86_400, null].map(humanDuration), ['0.4s', '45s', '1m 12s', '1h', '2h 10m', '3d 4h', '1d', '-']);
  });

  it('the summary, the people and the noisiest alerts, whole when piped', () => {
    const text = reportText(base, null);
    assert.equal(text, [
      'what the pager cost',
      'WHAT            NUMBERS',
      'window          2026-10-30 12:00Z to 2026-11-29 12:00Z',
      'pages           12 (acknowledged 10, resolved 11)',
      'to acknowledge  p50 1m 12s, p90 4m 30s, max 23m',
      'to resolve      p50 18m, p90 2h 10m, max 3d 4h',
      'escalations     4 (timeout 3, manual 1)',
      'exhausted       1',
      'flapping        4',
      'interruptions   11 (business 6, off hours 3, sleep 2)',
      '',
      'who carried the pager',
      'PERSON             ZONE                            BUSINESS  OFF HOURS  SLEEP  WOKEN  ON CALL',
      'alice-longer-name  America/Argentina/Buenos_Aires  6         3          2      11     360.5h',
      '',
      'noisiest alerts',
      'ALERT                                           PAGES  FLAPPING',
      'KubePersistentVolumeFillingUpInTheNextFourDays  7      4',
      '(no alert name)                                 1      0',
      '',
    ].join('\n'));
  });

  for (const width of [120, 80, 40]) {
    it(`every table fits ${width} columns, names whole, with --by and without`, () => {
      for (const r of [base, { ...base, by: 'person' as const, groups: [group('alice-longer-name', 360.5), group('bob', 0)] },
        { ...base, by: 'alert' as const, groups: [group('KubePersistentVolumeFillingUpInTheNextFourDays', null), group(null, null)] }]) {
        const text = reportText(r, width);
        const tooWide = text.split('\n').filter((l) => l.length > width);
        assert.deepEqual(tooWide, [], `${r.by ?? 'none'} at ${width}`);
        if (r.by !== 'alert') assert.match(text, /alice-longer-name/);
        assert.match(text, r.by === null ? /WOKEN/ : /PAGES/);
        assert.match(text, /p90 2h 10m/, 'the numbers are all there, continued on the next line when narrow');
      }
    });
  }
});
