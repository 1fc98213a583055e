import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeWindows, weekWindows, weekdayIndex } from './week-windows.js';

const DAY = 1440;
describe('weekWindows', () => {
  it('splits a stretch over several days into svc windows: Monday 08:00 to Friday 18:00', () => {
    const w = weekWindows([{ start: 8 * 60, minutes: 4 * DAY + 10 * 60 }]);
    assert.equal(w.kind, 'windows');
    assert.equal(w.kind === 'windows' && describeWindows(w.windows), 'mon 08:00–24:00; tue,wed,thu 00:00–24:00; fri 00:00–18:00');
  });

  it('keeps 22:00–06:00 on weekdays as one overnight window, wrapping the week end', () => {
    const w = weekWindows([0, 1, 2, 3, 4].map((d) => ({ start: d * DAY + 22 * 60, minutes: 8 * 60 })));
    assert.deepEqual(w, { kind: 'windows', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 1320, toMinute: 360 }] });
    const sunday = weekWindows([{ start: 6 * DAY + 20 * 60, minutes: 10 * 60 }]);
    assert.deepEqual(sunday, { kind: 'windows', windows: [{ days: ['sun'], fromMinute: 1200, toMinute: 360 }] });
  });

  it('says always for the whole week, never for nothing, and takes starts modulo a week', () => {
    assert.deepEqual(weekWindows([{ start: 0, minutes: 7 * DAY }]), { kind: 'always' });
    assert.deepEqual(weekWindows([0, 1, 2, 3, 4, 5, 6].map((d) => ({ start: d * DAY + 9 * 60, minutes: DAY }))), { kind: 'always' });
    assert.deepEqual(weekWindows([]), { kind: 'never' });
    assert.deepEqual(weekWindows([{ start: -DAY, minutes: 60 }]), weekWindows([{ start: 6 * DAY, minutes: 60 }]));
  });

  it('reads the vendors\' day names and ISO numbers', () => {
    assert.deepEqual(['monday', 'TUESDAY', 'WE', 'th', 'Friday', 'SA', 'sunday'].map(weekdayIndex), [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual([1, 7, 0, 8].map(weekdayIndex), [0, 6, null, null]);
    assert.equal(weekdayIndex('someday'), null);
  });
});
