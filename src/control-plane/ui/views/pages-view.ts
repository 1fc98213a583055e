/**
 * /ui/pages: pages, newest first, filtered like GET /pages (agent, state, policy) and read the same
 * way: the same query parser and spec (pages-route.ts), a turn at the read gate, the store's keyset
 * page. The state filter is a select of the page states.
 */
import { PAGE_STATES } from '../../../oncall/page.js';
import { InvalidCursorError } from '../../../store/cursor.js';
import type { PageFilter, StoredPage } from '../../../store/oncall-store.js';
import { parseViewQuery } from '../../page-query.js';
import { takeTurn } from '../../read-gate.js';
import { PAGES_VIEW } from '../../routes/pages-route.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { PAGE_COLUMNS, messagesOf, pageRow } from './page-parts.js';
import { banner, filterForm, pager, table } from './parts.js';
import { CONSOLE_PAGE_LIMIT } from './read-page.js';
import type { View } from './view-types.js';

export const pagesView: View = async (deps, req) => {
  const params: Record<string, string> = {};
  const search = new URLSearchParams();
  for (const [k, v] of req.url.searchParams) {
    if (v === '') continue;
    search.append(k, v);
    params[k] = v;
  }
  if (!search.has('limit')) search.set('limit', String(CONSOLE_PAGE_LIMIT));
  const form = filterForm('/ui/pages', 'Filter pages', [
    { name: 'state', label: 'State', value: params.state, options: ['', ...PAGE_STATES] },
    { name: 'agent', label: 'Agent', value: params.agent },
    { name: 'policy', label: 'Policy', value: params.policy },
  ]);
  const bad = (error: string): { status: 400; title: string; section: string; body: Html } =>
    ({ status: 400, title: 'Pages', section: '/ui/pages', body: html`${form}${banner(false, error)}` });
  const parsed = parseViewQuery(search, PAGES_VIEW);
  if (!parsed.ok) return bad(parsed.error);
  const { state } = parsed.value.filter;
  if (state !== undefined && !(PAGE_STATES as readonly string[]).includes(state)) return bad(`invalid state: expected one of ${PAGE_STATES.join(', ')}`);
  const leave = await takeTurn(deps.gate, req.signal);
  if (leave === null) return { status: 0 };
  let page: { items: StoredPage[]; nextCursor: string | null };
  try {
    page = await deps.store.oncall.listPages(parsed.value.page, parsed.value.filter as PageFilter);
  } catch (err) {
    if (err instanceof InvalidCursorError) return bad(`invalid cursor: ${err.message}`);
    throw err;
  } finally {
    leave();
  }
  const first = parsed.value.page.cursor === null;
  const messages = await messagesOf(deps, page.items);
  return {
    status: 200, title: 'Pages', section: '/ui/pages',
    body: html`${form}
<div id="live"${first ? html` data-refresh="5"` : ''}>
${table('Pages', PAGE_COLUMNS, page.items.map((p) => pageRow(p, messages.get(p.id) ?? null)), 'No pages match.', { cards: true })}
</div>
${pager('/ui/pages', params, page.nextCursor, first)}`,
  };
};
