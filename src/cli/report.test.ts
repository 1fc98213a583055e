import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { reportParams } from './report.js';

const clock = fakeClock(Date.parse('2026-11-29T12:00:00Z'));
const flags = { since: '30d', json: false, csv: false };

it('svc report: the flags become GET /report\'s query; --since is 30 days back by default, until now', () => {
  assert.equal(reportParams(flags, { clock }).toString(), `since=${Date.parse('2026-10-30T12:00:00Z')}&until=${Date.parse('2026-11-29T12:00:00Z')}`);
  assert.equal(reportParams({ ...flags, since: '2026-11-01T00:00:00Z', until: '2026-11-08T00:00:00Z', by: 'schedule', agent: 'esc' }, { clock }).toString(),
    'since=2026-11-01T00%3A00%3A00.000Z&until=2026-11-08T00%3A00%3A00.000Z&agent=esc&by=schedule', 'instants as the one parser of typed times writes them');
});

it('svc report: bad input is a usage error (exit 2) naming the flag, before any request', () => {
  const refused = (over: Record<string, unknown>): string => {
    try {
      reportParams({ ...flags, ...over }, { clock });
    } catch (err) {
      assert.ok(err instanceof UsageError);
      return err.message;
    }
    return 'accepted';
  };
  assert.match(refused({ since: 'nonsense' }), /^svc report: --since: expected an ISO-8601 timestamp/);
  assert.match(refused({ until: 'yesterday' }), /^svc report: --until: /);
  assert.equal(refused({ since: '2026-11-29T10:00' }), 'svc report: --since: "2026-11-29T10:00" has no time zone; write ISO-8601 with a zone '
    + '(2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds');
  assert.equal(refused({ since: '2026-11-20T00:00:00Z', until: '2026-11-19T00:00:00Z' }), 'svc report: --until must be after --since');
  assert.equal(refused({ since: '400d' }), 'svc report: --since: the window is at most 366 days (400 asked)');
  assert.equal(refused({ by: 'color' }), 'svc report: --by must be one of person, schedule, policy, alert');
  assert.equal(refused({ json: true, csv: true }), 'svc report: --json and --csv: choose one');
  assert.equal(refused({ agent: ' ' }), 'svc report: --agent must name an agent');
});
