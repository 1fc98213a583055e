import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SMS_SEPTETS, cutGsm7, isGsm7, septetCount, toGsm7 } from './gsm7.js';

describe('GSM-7 (3GPP TS 23.038): what fits one 160-character SMS part', () => {
  it('counts the basic table 1 and the extension table 2 (ESC + code)', () => {
    assert.equal(septetCount('Disk full @ db-1: 97% (>90%)'), 28);
    assert.equal(septetCount('a{b}'), 6);
    assert.equal(septetCount('^{}\\[~]|€'), 18);
    assert.equal(septetCount('ÄÖÜäöüßéèÅÑ£¥§¿¡ΔΩ'), 18);
  });

  it('knows which text is GSM-7 already: one curly quote would make the whole SMS UCS-2', () => {
    assert.equal(isGsm7('Straße in Zürich: Ångström-Gerät @ 03:00 [P1] {x} €5'), true);
    assert.equal(isGsm7('Disk “full”'), false);
    assert.equal(isGsm7('ç'), false, 'GSM has Ç, not ç');
    assert.equal(isGsm7('🔥'), false);
  });

  it('transliterates: typography made plain, accents dropped, whitespace a space, the rest ?', () => {
    assert.equal(toGsm7('“full” – ok…'), '"full" - ok...');
    assert.equal(toGsm7('Łódź, Kraków, façade, São Paulo, Dvořák'), 'Lodz, Krakow, facade, Sao Paulo, Dvorak');
    assert.equal(toGsm7('Straße café Ångström'), 'Straße café Ångström', 'GSM letters stay');
    assert.equal(toGsm7('tab\there\u00a0nbsp\u2028ls'), 'tab here nbsp ls');
    assert.equal(toGsm7('🔥 CPU 日本'), '? CPU ??', 'a surrogate pair is one character, one ?');
    assert.equal(toGsm7('≥ 5 → ≠ ×'), '>= 5 -> != x');
    assert.equal(isGsm7(toGsm7('any “text” — ∀x∈ℝ 😀 ǅ ĳ ﬁ')), true);
  });

  it('cuts to a septet budget with "...", never half an extension character', () => {
    assert.equal(cutGsm7('abcdefghij', 10), 'abcdefghij');
    assert.equal(cutGsm7('abcdefghij', 8), 'abcde...');
    assert.equal(cutGsm7('aaaa{{{{', 9), 'aaaa{...');
    assert.equal(cutGsm7('aaaa{{{{', 8), 'aaaa...');
    assert.equal(cutGsm7('abc def', 3), 'abc');
    assert.equal(cutGsm7('abc', 0), '');
    const long = 'x'.repeat(200);
    assert.equal(septetCount(cutGsm7(long, SMS_SEPTETS)), SMS_SEPTETS);
  });
});
