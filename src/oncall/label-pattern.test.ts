import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MATCHED_VALUE_CHARS, compileLabelPattern, labelsMatch, patternMatches } from './label-pattern.js';

describe('label patterns (issue 33.1, contract §24.3)', () => {
  it('anchored RE2; a value past the bound never matches a pattern; a label the alert lacks is ""', () => {
    assert.equal(patternMatches('db-[0-9]+', 'db-12'), true);
    assert.equal(patternMatches('db-[0-9]+', 'mydb-12'), false);
    assert.equal(patternMatches('.*', 'x'.repeat(MAX_MATCHED_VALUE_CHARS)), true);
    assert.equal(patternMatches('.*', 'x'.repeat(MAX_MATCHED_VALUE_CHARS + 1)), false);
    assert.equal(labelsMatch([{ label: 'env', op: '=~', value: '' }, { label: 'team', op: '=', value: 'db' }], { team: 'db' }), true);
  });

  it('each compiled pattern\'s DFA cache is capped (re2js keeps 8 MB per pattern otherwise): this reads re2js internals an upgrade may move', () => {
    const r = compileLabelPattern('prod-.*');
    assert.ok(r.ok);
    const dfa = r.pattern.re2().dfa;
    assert.deepEqual([dfa.stateBudget, dfa.memBudget], [256 * 1024, 256 * 1024]);
    assert.ok(dfa.classBounds.length > 0, 'the probe reads the DFA\'s character classes');
  });

  it('a pattern whose DFA grows with the value is refused; one with a few states is not', () => {
    for (const grows of ['.*a.{20}', '(?:[a-c]*[ab][a-c]{20}){3}[a-c]*', '(?:.*a.{10}){5}.*']) assert.equal(compileLabelPattern(grows).ok, false, grows);
    for (const fine of ['.*-.*-.*-.*-prod', '[a-z0-9-]{1,63}', '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '(?i)prod-.*-(eu|us)-[0-9]{1,3}']) {
      assert.equal(compileLabelPattern(fine).ok, true, fine);
    }
  });
});
