import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RuntimeError } from '../core/errors.js';
import { isIdPrefix, isWholeId, pickOne } from './id-prefix.js';

const ids = ['0b8f3c1e-9d7a-4e55-8a51-7d2f0c6b9e12', '0b8f9a00-1111-4e55-8a51-7d2f0c6b9e12', '7a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6'].map((id) => ({ id }));

describe('part of an id', () => {
  it('names the one record whose id starts or ends with it', () => {
    assert.equal(pickOne('svc dlq replay', 'dead-letter', '7a', ids.filter((r) => r.id.startsWith('7a'))).id, ids[2]?.id);
    assert.equal(isWholeId(ids[0]?.id ?? ''), true);
    assert.equal(isWholeId('0b8f3c1e'), false);
  });

  it('ambiguous or unknown: exit 1 saying how many it names', () => {
    assert.throws(() => pickOne('svc dlq replay', 'dead-letter', '0b8f', ids.filter((r) => r.id.startsWith('0b8f'))), (err: unknown) =>
      err instanceof RuntimeError && err.message === `svc dlq replay: 0b8f is part of 2 dead-letter ids (${ids[0]?.id}, ${ids[1]?.id}); type more of it`);
    assert.throws(() => pickOne('svc events show', 'event', 'ff', []), (err: unknown) =>
      err instanceof RuntimeError && err.message === 'svc events show: no event id starts or ends with ff');
  });

  it('is looked up only when it could start an id: another word goes on as typed (the daemon says it is not found)', () => {
    assert.equal(isIdPrefix('0B8F-3c'), true);
    assert.equal(isIdPrefix('-7d2f0c6b9e12'), true, 'the end of an id, dash and all');
    assert.equal(isIdPrefix('no-such-dead-letter'), false);
    assert.equal(isIdPrefix(''), false);
  });
});
