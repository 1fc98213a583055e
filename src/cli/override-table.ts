/**
 * What `svc oncall override ls` prints: a table a person reads on an 80-column terminal (times as
 * `svc oncall` shows them, ids whole to copy into `svc oncall override rm`), or with `--json` one
 * object a line, as `svc silence ls --json` does.
 */
import type { OverrideView } from '../daemon/admin-oncall-protocol.js';
import type { CliContext } from './context.js';
import { isoSecond, shortTime } from './oncall.js';
import { printTable } from './style.js';
import type { Column } from './table.js';
import { idColumn } from './table.js';

export interface OverrideFilter {
  schedule?: string;
  agent?: string;
}

export function overrideJson(o: OverrideView): Record<string, unknown> {
  return { id: o.id, agentId: o.agentId, schedule: o.scheduleId, person: o.personId, from: isoSecond(o.fromMs), to: isoSecond(o.toMs),
    createdBy: o.createdBy, createdAt: isoSecond(o.createdAtMs) };
}

const short = (ms: number): string => shortTime(new Date(ms).toISOString());

/** AGENT only when the overrides are of more than one agent, as in `svc oncall`; on a narrow terminal BY gives way before it. */
export function printOverrides(ctx: CliContext, overrides: readonly OverrideView[], filter: OverrideFilter, json: boolean): void {
  if (json) {
    for (const o of overrides) ctx.stdout(`${JSON.stringify(overrideJson(o))}\n`);
    return;
  }
  if (overrides.length === 0) {
    const of = `${filter.schedule === undefined ? '' : ` for ${filter.schedule}`}${filter.agent === undefined ? '' : ` in agent ${filter.agent}`}`;
    ctx.stdout(`no overrides${of} in force or to come\n`);
    return;
  }
  const agents = new Set(overrides.map((o) => o.agentId)).size > 1;
  const headers: Column[] = [idColumn('ID'), { header: 'SCHEDULE' }, { header: 'PERSON' }, { header: 'FROM' }, { header: 'UNTIL' }, { header: 'BY', drop: 2 }];
  printTable(ctx, agents ? [{ header: 'AGENT', drop: 1 }, ...headers] : headers,
    overrides.map((o) => [...(agents ? [o.agentId] : []), o.id, o.scheduleId, o.personId, short(o.fromMs), short(o.toMs), o.createdBy]));
}
