import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import { createFloodBudget } from './flood-budget.js';

describe('createFloodBudget', () => {
  it('allows the budget per window, starts over in the next window, and stays over once exceeded', () => {
    const clock = fakeClock();
    const budget = createFloodBudget({ clock, windowMs: 10_000, maxBytes: 100, maxLines: 1000 });
    assert.equal(budget.add(60), false);
    assert.equal(budget.add(40), false);
    clock.advance(10_000);
    assert.equal(budget.add(100), false, 'a new window');
    assert.equal(budget.add(1), true);
    clock.advance(60_000);
    assert.equal(budget.add(1), true, 'a flooding server stays flooding: it is restarted');
  });

  it('counts lines apart from bytes: many short lines are a flood even far under the byte budget', () => {
    const clock = fakeClock();
    const budget = createFloodBudget({ clock, windowMs: 10_000, maxBytes: 1024 * 1024, maxLines: 3 });
    for (let i = 0; i < 3; i++) assert.equal(budget.add(2, 1), false);
    assert.equal(budget.add(2, 1), true);
    assert.equal(budget.lines(), 4);
    assert.equal(budget.bytes(), 8);
  });
});
