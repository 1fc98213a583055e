import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_VIEW, DEAD_LETTERS_VIEW, EVENTS_VIEW, parseViewQuery } from './page-query.js';
import { parseTimeParam } from './query.js';

const parse = (qs: string, spec: typeof EVENTS_VIEW | typeof DEAD_LETTERS_VIEW | typeof AUDIT_VIEW = EVENTS_VIEW) =>
  parseViewQuery(new URLSearchParams(qs), spec as typeof EVENTS_VIEW);

const T = Date.UTC(2024, 0, 1);

describe('page query (contract §5)', () => {
  it('defaults: limit 100, no cursor, desc for events and dlq, asc for audit, no bounds, no filters', () => {
    const page = { limit: 100, cursor: null, order: 'desc', sinceMs: null, untilMs: null };
    assert.deepEqual(parse(''), { ok: true, value: { page, filter: {}, verify: false } });
    assert.deepEqual(parse('', DEAD_LETTERS_VIEW), { ok: true, value: { page, filter: {}, verify: false } });
    assert.deepEqual(parse('', AUDIT_VIEW), { ok: true, value: { page: { ...page, order: 'asc' }, filter: {}, verify: false } });
  });

  it('every parameter, well-formed', () => {
    assert.deepEqual(parse(`limit=1000&cursor=abc&order=asc&since=2024-01-01T00:00:00Z&until=${T + 5}&agent=a&source=s&kind=k`), {
      ok: true,
      value: {
        page: { limit: 1000, cursor: 'abc', order: 'asc', sinceMs: T, untilMs: T + 5 },
        filter: { agent: 'a', source: 's', kind: 'k' }, verify: false,
      },
    });
    assert.deepEqual(parse('reason=triage-failed&agent=a&source=s&order=desc&limit=1', DEAD_LETTERS_VIEW), {
      ok: true,
      value: { page: { limit: 1, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, filter: { reason: 'triage-failed', agent: 'a', source: 's' }, verify: false },
    });
    const audit = parse('verify=1&kind=event.accepted&agent=a&since=2024-01-01T01:00:00.5%2B01:00', AUDIT_VIEW);
    assert.ok(audit.ok);
    assert.deepEqual(audit.value.filter, { kind: 'event.accepted', agent: 'a' });
    assert.equal(audit.value.verify, true);
    assert.equal(audit.value.page.sinceMs, T + 500);
    // since == until is a valid (one-instant) window; filter values may be any printable text.
    assert.ok(parse(`since=${T}&until=${T}`).ok);
    assert.ok(parse(`agent=${encodeURIComponent('é€ x/y "q"')}`).ok);
    assert.ok(parse(`agent=${'a'.repeat(128)}`).ok);
  });

  const bad: Array<[qs: string, error: string, spec?: typeof AUDIT_VIEW | typeof DEAD_LETTERS_VIEW]> = [
    ['limit=0', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=1001', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=-1', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=1.5', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=10abc', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=abc', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=%2B5', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=1e2', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=99999999999', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit=1&limit=2', 'invalid limit: given more than once'],
    ['cursor=', 'invalid cursor: empty'],
    ['cursor=a&cursor=b', 'invalid cursor: given more than once'],
    ['order=up', 'invalid order: expected asc or desc'],
    ['order=ASC', 'invalid order: expected asc or desc'],
    ['order=', 'invalid order: expected asc or desc'],
    ['since=yesterday', 'invalid since: expected an ISO-8601 timestamp or integer milliseconds'],
    ['since=2024-02-30T00:00:00Z', 'invalid since: expected an ISO-8601 timestamp or integer milliseconds'],
    ['since=2024-01-01', 'invalid since: expected an ISO-8601 timestamp or integer milliseconds'],
    ['until=-5', 'invalid until: expected an ISO-8601 timestamp or integer milliseconds'],
    [`since=${T + 1}&until=${T}`, 'invalid until: earlier than since'],
    ['since=2024-01-02T00:00:00Z&until=2024-01-01T00:00:00Z', 'invalid until: earlier than since'],
    ['limt=5', 'invalid limt: unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)'],
    ['reason=x', 'invalid reason: unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)'],
    ['verify=1', 'invalid verify: unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)'],
    ['kind=x', 'invalid kind: unknown parameter (expected limit, cursor, order, since, until, agent, source, reason)', DEAD_LETTERS_VIEW],
    ['source=x', 'invalid source: unknown parameter (expected limit, cursor, order, since, until, kind, agent, verify)', AUDIT_VIEW],
    ['=x', 'invalid "": unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)'],
    ['a%0Ab=1', 'invalid "a?b": unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)'],
    [`${'x'.repeat(100)}=1`, `invalid ${'x'.repeat(64)}…: unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)`],
    ['agent=', 'invalid agent: empty'],
    [`agent=${'a'.repeat(129)}`, 'invalid agent: longer than 128 characters'],
    ['agent=a%00b', 'invalid agent: not printable'],
    ['source=a%0Ab', 'invalid source: not printable'],
    ['kind=%E2%80%AEevil', 'invalid kind: not printable'],
    ['agent=a&agent=b', 'invalid agent: given more than once'],
    ['verify=2', 'invalid verify: expected 1', AUDIT_VIEW],
    ['verify=true', 'invalid verify: expected 1', AUDIT_VIEW],
    ['verify=', 'invalid verify: expected 1', AUDIT_VIEW],
    ['verify=1&verify=1', 'invalid verify: given more than once', AUDIT_VIEW],
  ];
  for (const [qs, error, spec] of bad) {
    it(`${qs.slice(0, 40)} → ${error.slice(0, 60)}`, () => {
      assert.deepEqual(parse(qs, spec), { ok: false, error });
    });
  }

  it('an unknown parameter is reported before anything else is looked at', () => {
    assert.deepEqual(parse('limit=0&lmit=1'), {
      ok: false, error: 'invalid lmit: unknown parameter (expected limit, cursor, order, since, until, agent, source, kind, status)',
    });
  });

  it('time parameters: ISO-8601 with a zone or integer ms', () => {
    assert.deepEqual(parseTimeParam('since', '0'), { ok: true, value: 0 });
    assert.deepEqual(parseTimeParam('since', '2024-02-29T12:00:00.123Z'), { ok: true, value: Date.UTC(2024, 1, 29, 12, 0, 0, 123) });
    assert.equal(parseTimeParam('since', '2023-02-29T12:00:00Z').ok, false);
    assert.equal(parseTimeParam('since', '2024-00-10T12:00:00Z').ok, false);
    assert.equal(parseTimeParam('since', '2024-01-10T12:00:00').ok, false);
  });
});
