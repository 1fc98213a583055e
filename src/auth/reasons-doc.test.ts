/**
 * docs/auth.md's "Rejection reasons" table is the operator's copy of AUTH_REASONS: same reasons, same
 * order, nothing more. And every reason has a client-safe text.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AUTH_ERROR_TEXT, AUTH_REASONS, isAuthReason } from './reasons.js';

const DOC = readFileSync(fileURLToPath(new URL('../../docs/auth.md', import.meta.url)), 'utf8');

/** The first column of the first table under `## heading`, header and separator rows dropped. */
function firstColumn(heading: string): string[] {
  const lines = DOC.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `docs/auth.md has no "## ${heading}" section`);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  assert.deepEqual(lines[first]?.split('|').map((c) => c.trim()).filter(Boolean), ['reason', 'when']);
  const cells: string[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    cells.push((line.split('|')[1] ?? '').trim().replace(/^`(.*)`$/, '$1'));
  }
  return cells;
}

describe('auth reasons', () => {
  it('the docs table lists exactly AUTH_REASONS, in order', () => {
    assert.deepEqual(firstColumn('Rejection reasons'), [...AUTH_REASONS]);
  });

  it('are the eleven of the specification', () => {
    assert.deepEqual([...AUTH_REASONS], [
      'missing-token', 'malformed-token', 'bad-signature', 'expired', 'not-yet-valid', 'wrong-issuer',
      'wrong-audience', 'insufficient-scope', 'idp-unreachable', 'provider-failed', 'config-error',
    ]);
    assert.ok(AUTH_REASONS.every(isAuthReason));
    assert.ok(!isAuthReason('Expired') && !isAuthReason(undefined));
  });

  it('each has a distinct, fixed error text with nothing to quote', () => {
    const texts = AUTH_REASONS.map((r) => AUTH_ERROR_TEXT[r]);
    assert.equal(new Set(texts).size, AUTH_REASONS.length);
    for (const t of texts) assert.match(t, /^[a-z ]+$/);
  });
});
