import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Silence } from './oncall-config.js';
import { parseSilenceMatcher, silenced, silencedBy } from './silence-match.js';

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
    assert.match((bad as { error: string }).error, /^the regular expression of instance does not compile: /);
    assert.deepEqual(parseSilenceMatcher(`a=~${'x'.repeat(257)}`), { ok: false, error: 'the regular expression of a is longer than 256 characters' });
  });

  it('refuses regular expressions that can backtrack exponentially on a hostile label value', () => {
    const nested = 'the regular expression of a: a repeated group with a repeat or an alternative inside (such as (a+)+ or (a|aa)*) is not allowed';
    for (const pattern of ['(a+)+', '(x*y)*', '(a|aa)+', '((ab)*c){2,}', '(?:a?)+', '(?<n>a+)*']) {
      assert.deepEqual(parseSilenceMatcher(`a=~${pattern}`), { ok: false, error: nested }, pattern);
    }
    assert.deepEqual(parseSilenceMatcher('a=~(a)\\1'), { ok: false, error: 'the regular expression of a: backreferences are not allowed' });
    for (const pattern of ['(db|web)-[0-9]+', 'db-[0-9]+', '(?:prod)+', '[(a+)+]', 'x\\(a+\\)+', '(a){3}', 'disk(full)?']) {
      assert.equal(parseSilenceMatcher(`a=~${pattern}`).ok, true, pattern);
    }
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
