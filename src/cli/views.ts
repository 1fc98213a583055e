/**
 * `svc events`, `svc dlq`, `svc audit [--verify]`: the paginated views of the control plane, every page
 * followed, as a table or `--json` (`{"items": [...]}`, plus `"verify"` for audit --verify).
 */
import type { VerifyResult } from '../audit/chain.js';
import type { DeadLetterRecord, EventRecord } from '../store/store.js';
import type { AuditRow } from '../audit/audit-row.js';
import type { CliContext } from './context.js';
import { controlTarget, getAllPages } from './control-client.js';
import { formatTable } from './table.js';

export interface ViewOptions {
  json: boolean;
  url?: string;
  /** Agent directory whose controlPlane.auth says how to get a token (token-source.ts). */
  dir?: string;
  limit?: string;
  order?: string;
  since?: string;
  until?: string;
  agent?: string;
  source?: string;
  kind?: string;
  reason?: string;
  verify?: boolean;
}

function params(opts: ViewOptions, filters: ReadonlyArray<keyof ViewOptions>): URLSearchParams {
  const p = new URLSearchParams();
  for (const key of ['limit', 'order', 'since', 'until', ...filters] as const) {
    const value = opts[key];
    if (typeof value === 'string') p.set(key, value);
  }
  return p;
}

export async function eventsCommand(opts: ViewOptions, ctx: CliContext): Promise<number> {
  const page = await getAllPages<EventRecord>(controlTarget(ctx, opts), '/events', params(opts, ['agent', 'source', 'kind']));
  ctx.stdout(opts.json ? JSON.stringify({ items: page.items }) + '\n' : formatTable(
    ['TS', 'ID', 'AGENT', 'SOURCE', 'KIND', 'STATUS', 'FINGERPRINT'],
    page.items.map((e) => [e.ts, e.id, e.agentId, e.sourceId, e.kind, e.status, e.fingerprint ?? '-'])));
  return 0;
}

export async function dlqCommand(opts: ViewOptions, ctx: CliContext): Promise<number> {
  const page = await getAllPages<DeadLetterRecord>(controlTarget(ctx, opts), '/dlq', params(opts, ['agent', 'source', 'reason']));
  ctx.stdout(opts.json ? JSON.stringify({ items: page.items }) + '\n' : formatTable(
    ['TS', 'ID', 'AGENT', 'SOURCE', 'EVENT', 'REASON', 'ATTEMPTS', 'ERROR'],
    page.items.map((d) => [d.ts, d.id, d.agentId, d.sourceId, d.eventId, d.reason, String(d.attempts), d.error])));
  return 0;
}

/** Exit 1 when --verify finds the chain broken. */
export async function auditCommand(opts: ViewOptions, ctx: CliContext): Promise<number> {
  const p = params(opts, ['agent', 'kind']);
  if (opts.verify) p.set('verify', '1');
  const page = await getAllPages<AuditRow>(controlTarget(ctx, opts), '/audit', p);
  const verify = page.verify as VerifyResult | undefined;
  if (opts.json) {
    ctx.stdout(JSON.stringify(verify ? { items: page.items, verify } : { items: page.items }) + '\n');
  } else {
    ctx.stdout(formatTable(['SEQ', 'TS', 'KIND', 'ACTOR', 'AGENT', 'HASH'],
      page.items.map((r) => [String(r.seq), r.ts, r.kind, r.actor, r.agentId ?? '-', r.hash.slice(0, 16)])));
    if (verify) {
      ctx.stdout(verify.ok
        ? `chain ok: ${verify.checked} rows checked, head seq ${verify.headSeq} ${verify.headHash ?? ''}\n`
        : `chain BROKEN at seq ${verify.firstBadSeq ?? '?'}: ${verify.problem ?? 'unknown'} (${verify.checked} rows checked)\n`);
    }
  }
  return verify && !verify.ok ? 1 : 0;
}
