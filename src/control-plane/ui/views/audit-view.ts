/**
 * /ui/audit: the audit chain, oldest first like /audit, filtered by kind and agent, each row as the
 * sentence `svc explain` prints, its data one click away; "Verify the chain"
 * asks `verify=1`, which checks the whole chain (Store.verifyAudit, shared with /audit) and shows the
 * verdict above the page.
 */
import type { VerifyResult } from '../../../audit/chain.js';
import { AUDIT_VIEW } from '../../page-query.js';
import { html } from '../html.js';
import { auditRowHead, auditWhatCell, banner, filterForm, pager, table } from './parts.js';
import { readPage } from './read-page.js';
import type { View } from './view-types.js';

interface AuditItem {
  seq: number; ts: string; kind: string; actor: string; agentId: string | null; prevHash: string; hash: string; data: unknown; corrupt?: true;
}

function verdict(v: VerifyResult): ReturnType<typeof banner> {
  if (v.ok) return banner(true, html`Chain intact: ${v.checked} rows checked, head seq ${v.headSeq}.`);
  return banner(false, html`Chain broken at seq ${v.firstBadSeq ?? '?'}: ${v.problem ?? 'unknown problem'} (${v.checked} rows checked).`);
}

export const auditView: View = async (deps, req) => {
  const page = await readPage<AuditItem, 'audit', 'kind' | 'agent'>({
    store: deps.store, gate: deps.gate, view: 'audit', spec: AUDIT_VIEW, url: req.url, signal: req.signal,
  });
  if (!page.ok && page.status === 0) return { status: 0 };
  const p = page.ok ? page.params : Object.fromEntries(req.url.searchParams);
  const form = filterForm('/ui/audit', 'Filter audit rows', [
    { name: 'kind', label: 'Kind', value: p.kind },
    { name: 'agent', label: 'Agent', value: p.agent },
    { name: 'order', label: 'Order', value: p.order, options: ['', 'asc', 'desc'] },
  ]);
  if (!page.ok) return { status: 400, title: 'Audit', section: '/ui/audit', body: html`${form}${banner(false, page.error)}` };
  const verify = page.query.verify ? verdict(await deps.store.verifyAudit()) : '';
  const rows = page.items.map((a) => html`<tr>
${auditRowHead(a.seq, a.ts, a.kind, a.actor)}<td data-label="Agent">${a.agentId ?? '—'}</td>
${auditWhatCell(a.kind, a.actor, a.corrupt ? null : JSON.stringify(a.data))}
<td class="mono" data-label="Hash"><abbr title="${a.hash}">${a.hash.slice(0, 12)}</abbr></td>
</tr>`);
  const { verify: _v, ...keep } = p;
  return {
    status: 200, title: 'Audit', section: '/ui/audit',
    body: html`${verify}${form}
<form method="get" action="/ui/audit" class="filters" aria-label="Verify the chain">
${Object.entries(keep).filter(([k]) => k !== 'cursor').map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<input type="hidden" name="verify" value="1">
<button type="submit">Verify the whole chain</button>
</form>
${table('Audit rows', ['Seq', 'Time', 'Kind', 'Actor', 'Agent', 'What', 'Hash'], rows, 'No audit rows match.', { cards: true })}
${pager('/ui/audit', p, page.nextCursor, page.query.page.cursor === null)}`,
  };
};
