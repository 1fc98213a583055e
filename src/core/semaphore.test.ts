import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSemaphore } from './semaphore.js';

const tick = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

test('at most `limit` holders; waiters get slots in arrival order', async () => {
  const sem = createSemaphore(2);
  const order: string[] = [];
  const r1 = await sem.acquire();
  const r2 = await sem.acquire();
  const w3 = sem.acquire().then((r) => { order.push('3'); return r; });
  const w4 = sem.acquire().then((r) => { order.push('4'); return r; });
  await tick();
  assert.deepEqual(sem.stats(), { limit: 2, active: 2, waiting: 2 });
  r2();
  const r3 = await w3;
  assert.deepEqual(order, ['3']);
  assert.deepEqual(sem.stats(), { limit: 2, active: 2, waiting: 1 });
  r1();
  const r4 = await w4;
  assert.deepEqual(order, ['3', '4']);
  r3();
  r4();
  assert.deepEqual(sem.stats(), { limit: 2, active: 0, waiting: 0 });
});

test('a release called twice frees one slot, not two', async () => {
  const sem = createSemaphore(1);
  const r = await sem.acquire();
  const waiting = sem.acquire();
  r();
  r();
  const r2 = await waiting;
  assert.deepEqual(sem.stats(), { limit: 1, active: 1, waiting: 0 });
  r2();
  assert.equal(sem.stats().active, 0);
});

test('an aborted waiter leaves the queue holding nothing, with the signal\'s reason', async () => {
  const sem = createSemaphore(1);
  const r = await sem.acquire();
  const ac = new AbortController();
  const waiting = sem.acquire(ac.signal);
  await tick();
  assert.equal(sem.stats().waiting, 1);
  ac.abort(new Error('client went away'));
  await assert.rejects(waiting, /client went away/);
  assert.deepEqual(sem.stats(), { limit: 1, active: 1, waiting: 0 });
  r();
  assert.equal(sem.stats().active, 0);
  await assert.rejects(sem.acquire(ac.signal), /client went away/);
  assert.equal(sem.stats().active, 0);
});

test('run releases the slot however fn ends', async () => {
  const sem = createSemaphore(1);
  await assert.rejects(sem.run(() => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(sem.stats().active, 0);
  assert.equal(await sem.run(() => Promise.resolve(7)), 7);
  assert.equal(sem.stats().active, 0);
});

test('a limit that is not a positive integer is a bug, refused', () => {
  assert.throws(() => createSemaphore(0), RangeError);
  assert.throws(() => createSemaphore(1.5), RangeError);
});
