import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { AgentLog, LogRecord } from './agent-log.js';
import { createAgentLog, createLogSinkHealth, writeEntries } from './agent-log.js';

const root = mkdtempSync(join(tmpdir(), 'svc-agent-log-'));
after(() => rmSync(root, { recursive: true, force: true }));
const lines = (path: string): Array<Record<string, unknown>> =>
  readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('agent log', () => {
  it('writes one redacted JSON record per line and mirrors it', () => {
    const path = join(root, 'a', 'oncall.log');
    const mirrored: LogRecord[] = [];
    const log = createAgentLog({ path, agentId: 'oncall', clock: fakeClock(0), mirror: (r) => mirrored.push(r) });
    log.write('info', 'webhook.accepted', { eventId: 'e1', bearerToken: 'x', skipped: undefined });
    log.close();
    assert.deepEqual(lines(path), [{ agentId: 'oncall', ts: '1970-01-01T00:00:00.000Z', level: 'info', event: 'webhook.accepted', eventId: 'e1', bearerToken: '[redacted]' }]);
    assert.deepEqual(mirrored, lines(path));
  });

  it('a failing sink (/dev/full: ENOSPC) never throws: lines are counted and reported once a minute', () => {
    const clock = fakeClock(0);
    const reports: string[] = [];
    const health = createLogSinkHealth({ clock, report: (l) => reports.push(l) });
    const mirrored: LogRecord[] = [];
    const log = createAgentLog({ path: '/dev/full', agentId: 'oncall', clock, health, mirror: (r) => mirrored.push(r) });
    for (let i = 0; i < 5; i++) log.write('info', 'x', { i });
    assert.equal(health.failures(), 5);
    assert.equal(reports.length, 1);
    assert.match(reports[0] ?? '', /log write failed: \/dev\/full: .*ENOSPC.*\(1 line lost since the last report, 1 in all\)/);
    clock.advance(60_000);
    log.write('info', 'x');
    assert.equal(reports.length, 2);
    assert.match(reports[1] ?? '', /\(5 lines lost since the last report, 6 in all\)/);
    assert.equal(mirrored.length, 6, 'the mirror still gets every record');
    log.close();
  });

  it('a directory that cannot be created is counted, and retried at most once a second', () => {
    const clock = fakeClock(0);
    const health = createLogSinkHealth({ clock, report: () => undefined });
    const log = createAgentLog({ path: '/dev/null/logs/oncall.log', agentId: 'oncall', clock, health });
    log.write('info', 'x');
    assert.equal(health.failures(), 2, 'the open and the write');
    log.write('info', 'x');
    assert.equal(health.failures(), 3, 'no second open within the second');
    log.close();
  });

  it('reopen() follows a rename: the next record lands in a new file at the path', () => {
    const path = join(root, 'b', 'oncall.log');
    const log = createAgentLog({ path, agentId: 'oncall', clock: fakeClock(0) });
    log.write('info', 'before');
    renameSync(path, `${path}.1`);
    log.write('info', 'still-old');
    assert.equal(existsSync(path), false);
    log.reopen?.();
    log.write('info', 'after');
    log.close();
    assert.deepEqual(lines(`${path}.1`).map((r) => r.event), ['before', 'still-old']);
    assert.deepEqual(lines(path).map((r) => r.event), ['after']);
  });

  it('writeAll writes its records in order after what came before, each as write would, and mirrors each', () => {
    const path = join(root, 'c', 'oncall.log');
    const mirrored: LogRecord[] = [];
    const clock = fakeClock(0);
    const log = createAgentLog({ path, agentId: 'oncall', clock, mirror: (r) => mirrored.push(r) });
    log.write('info', 'first');
    clock.advance(5);
    log.writeAll([{ level: 'info', event: 'webhook.accepted', fields: { eventId: 'e1', fingerprint: null, sourceId: 'am' } },
      { level: 'warn', event: 'webhook.accepted', fields: { eventId: 'e2', secret: 's', skipped: undefined } }]);
    log.writeAll([]);
    log.close();
    assert.deepEqual(lines(path), [
      { agentId: 'oncall', ts: '1970-01-01T00:00:00.000Z', level: 'info', event: 'first' },
      { agentId: 'oncall', ts: '1970-01-01T00:00:00.005Z', level: 'info', event: 'webhook.accepted', eventId: 'e1', fingerprint: null, sourceId: 'am' },
      { agentId: 'oncall', ts: '1970-01-01T00:00:00.005Z', level: 'warn', event: 'webhook.accepted', eventId: 'e2', secret: '[redacted]' },
    ]);
    assert.deepEqual(mirrored, lines(path));
  });

  it('writeAll on a failing sink never throws and counts every record of it as lost', () => {
    const clock = fakeClock(0);
    const reports: string[] = [];
    const health = createLogSinkHealth({ clock, report: (l) => reports.push(l) });
    const log = createAgentLog({ path: '/dev/full', agentId: 'oncall', clock, health });
    log.writeAll([{ level: 'info', event: 'a' }, { level: 'info', event: 'b' }, { level: 'info', event: 'c' }]);
    assert.equal(health.failures(), 3);
    assert.equal(log.failures(), 3);
    clock.advance(60_000);
    log.write('info', 'd');
    assert.match(reports[1] ?? '', /\(3 lines lost since the last report, 4 in all\)/);
    log.close();
  });

  it('writeEntries falls back to one write per record for a log without writeAll (a stand-in)', () => {
    const seen: string[] = [];
    const standIn: AgentLog = { write: (level, event, fields) => { seen.push(`${level} ${event} ${JSON.stringify(fields)}`); }, close: () => undefined };
    writeEntries(standIn, [{ level: 'info', event: 'a', fields: { n: 1 } }, { level: 'error', event: 'b' }]);
    assert.deepEqual(seen, ['info a {"n":1}', 'error b undefined']);
  });
});
