import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { abortable } from './abortable.js';

test('resolves and rejects with the promise, and leaves no listener on the signal', async () => {
  const ac = new AbortController();
  assert.equal(await abortable(Promise.resolve(1), ac.signal), 1);
  await assert.rejects(abortable(Promise.reject(new Error('no')), ac.signal), /no/);
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
});

test('rejects with the signal\'s reason when it aborts first, or had aborted already', async () => {
  const ac = new AbortController();
  const never = new Promise<number>(() => undefined);
  const waiting = abortable(never, ac.signal);
  ac.abort(new Error('shutting down'));
  await assert.rejects(waiting, /shutting down/);
  await assert.rejects(abortable(Promise.resolve(1), ac.signal), /shutting down/);
});

test('without a signal it is the promise itself', () => {
  const p = Promise.resolve('x');
  assert.equal(abortable(p, undefined), p);
});
