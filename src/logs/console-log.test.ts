import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { createConsoleLog, formatText } from './console-log.js';

describe('console log', () => {
  const record = { agentId: 'oncall', ts: '2026-01-01T00:00:00.000Z', level: 'info' as const, event: 'webhook.accepted',
    eventId: 'e-1', title: 'Disk full on db-1', n: 3, ok: true };

  it('json: one record per line, as written to the agent log', () => {
    const out: string[] = [];
    const log = createConsoleLog({ format: 'json', clock: fakeClock(0), write: (t) => out.push(t) });
    log.record(record);
    log.line('error', 'ingest error: boom');
    assert.deepEqual(JSON.parse(out[0] ?? ''), record);
    assert.deepEqual(JSON.parse(out[1] ?? ''), { ts: '1970-01-01T00:00:00.000Z', level: 'error', event: 'svc.daemon', message: 'ingest error: boom' });
    assert.ok(out.every((l) => l.endsWith('\n')));
  });

  it('text: time, level, agent, event and key=value pairs, quoted when needed', () => {
    assert.equal(formatText(record), '2026-01-01T00:00:00.000Z INFO  oncall webhook.accepted eventId=e-1 title="Disk full on db-1" n=3 ok=true');
    const out: string[] = [];
    createConsoleLog({ format: 'text', clock: fakeClock(0), write: (t) => out.push(t) }).line('info', 'svc up: running');
    assert.deepEqual(out, ['1970-01-01T00:00:00.000Z INFO  svc up: running\n']);
  });

  it('a failing stdout never throws', () => {
    const log = createConsoleLog({ format: 'json', clock: fakeClock(0), write: () => { throw new Error('EPIPE'); } });
    log.record(record);
    log.line('info', 'x');
  });
});
