import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT, exitCodeFor, isRuntimeErrorCode, RUNTIME_ERROR_CODES, RuntimeError, UsageError } from './errors.js';

test('the error vocabulary is closed: a misspelt code does not compile, an unknown one is not taken from a worker', () => {
  // `npm run lint` type-checks this file: without the error below, @ts-expect-error itself fails.
  // @ts-expect-error 'EUNREACHBLE' is not a RuntimeErrorCode
  const misspelt = new RuntimeError('EUNREACHBLE', 'x');
  assert.equal(isRuntimeErrorCode(misspelt.code), false);
  assert.equal(isRuntimeErrorCode('EUNREACHABLE'), true);
  assert.equal(isRuntimeErrorCode(42), false);
  assert.equal(new Set(RUNTIME_ERROR_CODES).size, RUNTIME_ERROR_CODES.length, 'each code once');
});

test('exit codes: usage and configuration 2, everything else 1', () => {
  assert.equal(exitCodeFor(new UsageError('x')), EXIT.usage);
  assert.equal(exitCodeFor(new RuntimeError('ETIMEOUT', 'x')), EXIT.runtime);
  assert.equal(exitCodeFor(new Error('x')), EXIT.runtime);
});
