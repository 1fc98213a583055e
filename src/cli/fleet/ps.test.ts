import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTable } from '../table.js';
import { FLEET_PS_COLUMNS } from './ps.js';

describe('svc fleet ps at 80 columns', () => {
  it('fits: the store kind, pid, uptime, provider and inflight give way; host, agent, state and the counts stay whole', () => {
    const row = ['eu-west-prod-1', '123456', '86400s', 'oncall-escalator', 'running', 'anthropic', '1048576', '1048570', '6', '0', 'postgres'];
    const lines = formatTable(FLEET_PS_COLUMNS, [row], { width: 80 }).trimEnd().split('\n');
    for (const line of lines) assert.ok(line.length <= 80, `${line.length}: ${line}`);
    assert.deepEqual(lines[0]?.split(/\s+/), ['HOST', 'AGENT', 'STATE', 'RECEIVED', 'PROCESSED', 'DLQ', 'INFLIGHT']);
    assert.deepEqual(lines[1]?.split(/\s+/), ['eu-west-prod-1', 'oncall-escalator', 'running', '1048576', '1048570', '6', '0']);
    // Piped (no width): every column.
    assert.equal(formatTable(FLEET_PS_COLUMNS, [row]).split('\n')[0]?.split(/\s+/).length, 11);
  });
});
