import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Silence } from './oncall-config.js';
import { parseSilenceMatcher, refusedMatchers, silenced, silencedBy } from './silence-match.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
function silence(id: string, matchers: string[], agentId: string | null = null, startsAtMs = NOW - 1000, endsAtMs = NOW + 3_600_000): Silence {
  return {
    id, agentId, startsAtMs, endsAtMs, reason: 'maintenance', createdBy: 'cli',
    matchers: matchers.map((m) => { const r = parseSilenceMatcher(m); assert.ok(r.ok, m); return r.matcher; }),
  };
}
const body = (status: string, ...labels: Array<Record<string, string>>) => ({ status, alerts: labels.map((l) => ({ status, labels: l })) });

describe('parseSilenceMatcher', () => {
  it('KEY=VALUE and KEY=~REGEX', () => {
    assert.deepEqual(parseSilenceMatcher('alertname=Watchdog'), { ok: true, matcher: { label: 'alertname', op: '=', value: 'Watchdog' } });
    assert.deepEqual(parseSilenceMatcher('instance=~db-[0-9]+'), { ok: true, matcher: { label: 'instance', op: '=~', value: 'db-[0-9]+' } });
    assert.deepEqual(parseSilenceMatcher('env='), { ok: true, matcher: { label: 'env', op: '=', value: '' } });
    assert.deepEqual(parseSilenceMatcher('msg=a=b'), { ok: true, matcher: { label: 'msg', op: '=', value: 'a=b' } });
  });

  it('clear errors: no operator, a bad label name, a regex that does not compile, too long', () => {
    assert.deepEqual(parseSilenceMatcher('alertname'), { ok: false, error: 'expected KEY=VALUE or KEY=~REGEX' });
    assert.deepEqual(parseSilenceMatcher('1x=a'), { ok: false, error: '"1x" is not a label name (letters, digits and _, not starting with a digit)' });
    assert.deepEqual(parseSilenceMatcher('x!=a'), { ok: false, error: 'expected KEY=VALUE or KEY=~REGEX' });
    const bad = parseSilenceMatcher('instance=~db-(');
    assert.equal(bad.ok, false);
    assert.match((bad as { error: string }).error, /^the regular expression of instance is not RE2 syntax \(missing closing \): `db-\(`\)/);
    assert.deepEqual(parseSilenceMatcher(`a=~${'x'.repeat(257)}`), { ok: false, error: 'the regular expression of a is longer than 256 characters' });
  });

  it('patterns are RE2: nested repeats are fine (linear time), backreferences, lookarounds and huge programs are refused naming the matcher', () => {
    for (const pattern of ['(a+)+', '(x*y)*', '(a|aa)+', '.*-.*-.*-.*-prod', '(db|web)-[0-9]+', 'disk(full)?', '[[:alpha:]]+', '\\d{1,3}']) {
      assert.equal(parseSilenceMatcher(`host=~${pattern}`).ok, true, pattern);
    }
    const refused = (pattern: string): string => {
      const r = parseSilenceMatcher(`host=~${pattern}`);
      assert.equal(r.ok, false, pattern);
      return (r as { error: string }).error;
    };
    assert.match(refused('(a)\\1'), /^the regular expression of host is not RE2 syntax \(invalid escape sequence: `\\1`\); lookarounds and backreferences are not supported$/);
    assert.match(refused('db(?=-prod)'), /^the regular expression of host is not RE2 syntax \(invalid or unsupported Perl syntax: `\(\?=`\)/);
    assert.equal(refused('.*a.{20}'), 'the regular expression of host needs an automaton that grows with the label (such as .*a.{20}: a counted or long '
      + 'repeat after a wildcard); anchor it on a literal or shorten the repeat');
    assert.equal(refused('(a?){1000}'), 'the regular expression of host compiles to 4002 instructions, more than 200 (write fewer or smaller counted repeats such as {n})');
  });
});

describe('silenced', () => {
  it('every alert matching a live silence: silenced; one alert left over: not', () => {
    const silences = [silence('s1', ['alertname=DiskFull', 'instance=~db-[0-9]+']), silence('s2', ['alertname=Watchdog'])];
    assert.deepEqual(silencedBy(silences, 'agent', body('firing', { alertname: 'DiskFull', instance: 'db-1' }, { alertname: 'Watchdog' }), NOW), ['s1', 's2']);
    assert.equal(silenced(silences, 'agent', body('firing', { alertname: 'DiskFull', instance: 'db-1' }, { alertname: 'CPU' }), NOW), false);
  });

  it('regular expressions are anchored; a missing label is ""', () => {
    const silences = [silence('s1', ['instance=~db.*'])];
    assert.equal(silenced(silences, 'agent', body('firing', { instance: 'mydb1' }), NOW), false);
    assert.equal(silenced(silences, 'agent', body('firing', { instance: 'db1' }), NOW), true);
    assert.equal(silenced([silence('s2', ['env='])], 'agent', body('firing', { alertname: 'x' }), NOW), true);
  });

  it('resolved notifications always pass; no alerts is never silenced', () => {
    const silences = [silence('s1', ['alertname=DiskFull'])];
    assert.equal(silenced(silences, 'agent', body('resolved', { alertname: 'DiskFull' }), NOW), false);
    assert.equal(silenced(silences, 'agent', { status: 'firing', alerts: [] }, NOW), false);
  });

  it('live only between start and end, and only for its agent', () => {
    const ended = silence('s1', ['alertname=DiskFull'], null, NOW - 7200_000, NOW);
    const later = silence('s2', ['alertname=DiskFull'], null, NOW + 1, NOW + 7200_000);
    const otherAgent = silence('s3', ['alertname=DiskFull'], 'other');
    const firing = body('firing', { alertname: 'DiskFull' });
    assert.equal(silenced([ended, later, otherAgent], 'agent', firing, NOW), false);
    assert.equal(silenced([otherAgent], 'other', firing, NOW), true);
  });
});

describe('silenced by a pattern (issue 33.1)', () => {
  it('the pattern that stalled the writer: 2,000 dashes are matched (and not silenced) at once', () => {
    // JavaScript's backtracking RegExp takes O(n⁴) here: 600 dashes were 20-50 s, 2,000 hours.
    const silences = [silence('s1', ['host=~.*-.*-.*-.*-prod'])];
    assert.equal(silenced(silences, 'agent', body('firing', { host: '-'.repeat(2000) }), NOW), false);
    assert.equal(silenced(silences, 'agent', body('firing', { host: '-'.repeat(256) }), NOW), false, 'within the length bound: matched, linear');
    assert.equal(silenced(silences, 'agent', body('firing', { host: 'db-1-eu-west-prod' }), NOW), true);
  });

  it('a value longer than 256 characters never matches a pattern (the alert pages)', () => {
    const long = `${'x'.repeat(300)}-prod`;
    assert.equal(silenced([silence('s1', ['host=~.*-prod'])], 'agent', body('firing', { host: long }), NOW), false);
    assert.equal(silenced([silence('s1', ['host=~.*-prod'])], 'agent', body('firing', { host: long.slice(-256) }), NOW), true);
  });

  it('a stored silence whose pattern RE2 refuses (JavaScript syntax, stored earlier) matches nothing and does not throw', () => {
    const stored: Silence = { id: 's-old', agentId: null, startsAtMs: NOW - 1000, endsAtMs: NOW + 60_000, reason: 'old', createdBy: 'cli',
      matchers: [{ label: 'host', op: '=~', value: 'db(?=-prod)' }] };
    assert.equal(silenced([stored], 'agent', body('firing', { host: 'db' }), NOW), false);
    assert.deepEqual(refusedMatchers(stored.matchers), [{ matcher: 'host=~db(?=-prod)', error: 'the regular expression of host is not RE2 syntax (invalid or unsupported Perl syntax: `(?=`); lookarounds and backreferences are not supported' }]);
    assert.deepEqual(refusedMatchers([{ label: 'host', op: '=~', value: 'db-.*' }]), []);
  });
});
