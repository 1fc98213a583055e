/** `svc oncall override ls` as a person sees it: the table at 80 columns (ids whole), the note for none, JSON lines. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OverrideView } from '../daemon/admin-oncall-protocol.js';
import type { CliContext } from './context.js';
import { printOverrides } from './override-table.js';

function capture(columns: number | null): { ctx: CliContext; out: () => string } {
  let text = '';
  const ctx = { stdout: (t: string) => { text += t; }, columns: () => columns } as unknown as CliContext;
  return { ctx, out: () => text };
}

const at = (iso: string): number => Date.parse(iso);
const override = (id: string, agentId: string, personId: string, from: string, to: string, createdBy = 'cli:dana'): OverrideView => ({
  id, agentId, scheduleId: 'primary', personId, fromMs: at(from), toMs: at(to), createdAtMs: at('2026-11-26T02:00:00Z'), createdBy });

describe('svc oncall override ls output', () => {
  const one = override('o3f9c0a1b2d4e', 'oncall-escalator', 'bob', '2026-12-23T23:00:00Z', '2026-12-26T23:00:00Z');

  it('a table that fits 80 columns whole', () => {
    const { ctx, out } = capture(80);
    printOverrides(ctx, [one], {}, false);
    assert.equal(out(), [
      'ID             SCHEDULE  PERSON  FROM               UNTIL              BY',
      'o3f9c0a1b2d4e  primary   bob     2026-12-23 23:00Z  2026-12-26 23:00Z  cli:dana',
      ''].join('\n'));
  });

  it('two agents: AGENT is shown; on a narrower terminal BY gives way before it, at 80 both, and the ids stay whole', () => {
    const other = override('o0a1b2c3d4e5f', 'db-escalator', 'alice', '2026-12-24T08:00:00Z', '2026-12-25T08:00:00Z', 'user:alice@example.com');
    const at = (columns: number): string => {
      const { ctx, out } = capture(columns);
      printOverrides(ctx, [one, other], {}, false);
      return out();
    };
    assert.equal(at(120), [
      'AGENT             ID             SCHEDULE  PERSON  FROM               UNTIL              BY',
      'oncall-escalator  o3f9c0a1b2d4e  primary   bob     2026-12-23 23:00Z  2026-12-26 23:00Z  cli:dana',
      'db-escalator      o0a1b2c3d4e5f  primary   alice   2026-12-24 08:00Z  2026-12-25 08:00Z  user:alice@example.com',
      ''].join('\n'));
    assert.equal(at(90), [
      'AGENT             ID             SCHEDULE  PERSON  FROM               UNTIL',
      'oncall-escalator  o3f9c0a1b2d4e  primary   bob     2026-12-23 23:00Z  2026-12-26 23:00Z',
      'db-escalator      o0a1b2c3d4e5f  primary   alice   2026-12-24 08:00Z  2026-12-25 08:00Z',
      ''].join('\n'));
    assert.equal(at(80), [
      'ID             SCHEDULE  PERSON  FROM               UNTIL',
      'o3f9c0a1b2d4e  primary   bob     2026-12-23 23:00Z  2026-12-26 23:00Z',
      'o0a1b2c3d4e5f  primary   alice   2026-12-24 08:00Z  2026-12-25 08:00Z',
      ''].join('\n'));
  });

  it('none: a note naming the filter', () => {
    const all = capture(80);
    printOverrides(all.ctx, [], {}, false);
    assert.equal(all.out(), 'no overrides in force or to come\n');
    const some = capture(80);
    printOverrides(some.ctx, [], { schedule: 'primary', agent: 'oncall-escalator' }, false);
    assert.equal(some.out(), 'no overrides for primary in agent oncall-escalator in force or to come\n');
  });

  it('--json: one object a line, times ISO-8601 UTC', () => {
    const { ctx, out } = capture(null);
    printOverrides(ctx, [one], {}, true);
    assert.equal(out(), '{"id":"o3f9c0a1b2d4e","agentId":"oncall-escalator","schedule":"primary","person":"bob","from":"2026-12-23T23:00:00Z",'
      + '"to":"2026-12-26T23:00:00Z","createdBy":"cli:dana","createdAt":"2026-11-26T02:00:00Z"}\n');
  });
});
