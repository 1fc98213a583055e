/**
 * How the console shows a page at 3 a.m. (contract §24.8): its state as a word with a colour of its
 * own, its title first (wrapped, never cut), and who it is paging now and next — in a list and on
 * Now. The rows are cards on a phone (`table.cards`, console-style.ts).
 */
import type { OncallConfig, Override } from '../../../oncall/oncall-config.js';
import type { PageRecord } from '../../../oncall/page.js';
import type { PagedNow } from '../../../oncall/page-message-model.js';
import { pagedNow } from '../../../oncall/paged-now.js';
import { usableOverrides } from '../../../oncall/schedule.js';
import type { StoredPage } from '../../../store/oncall-store.js';
import { isDamagedPage } from '../../../store/oncall-store.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { timeText } from './parts.js';
import type { UiDeps } from './view-types.js';

/** A page's state as a word in its own colour; a triggered page that ran out of steps says so. */
export function stateChip(p: Pick<PageRecord, 'state' | 'exhausted'>): Html {
  return html`<span class="state state-${p.state}">${p.state}${p.exhausted ? ' (exhausted)' : ''}</span>`;
}

/** `now: alice · next: bob at 10:05` (or who acknowledged it); empty for a resolved page. */
export function pagedText(p: PageRecord, paged: PagedNow | null): Html {
  if (p.state === 'acknowledged') return html`acknowledged by ${p.acknowledgedBy ?? '?'}`;
  if (paged === null) return html`—`;
  const now = paged.now.length === 0 ? 'nobody' : paged.now.join(', ');
  const next = paged.next === null ? html`<span class="note">no next step</span>`
    : html`next: <strong>${paged.next.who.join(', ') || 'nobody'}</strong> (step ${paged.next.step}) at ${timeText(paged.next.atMs)}`;
  return html`now: <strong>${now}</strong> (step ${paged.step} of ${paged.steps}) · ${next}`;
}

/** Who each of these pages pages now and next: each agent's file and usable overrides read once. */
export async function pagedOf(deps: Pick<UiDeps, 'oncall'>, pages: readonly StoredPage[]): Promise<Map<string, PagedNow | null>> {
  const nowMs = deps.oncall.clock.now();
  const configs = new Map<string, OncallConfig>(deps.oncall.configs().map((c) => [c.agentId, c.config]));
  const overrides = new Map<string, readonly Override[]>();
  const out = new Map<string, PagedNow | null>();
  for (const p of pages) {
    if (isDamagedPage(p) || p.state === 'resolved') { out.set(p.id, null); continue; }
    const config = configs.get(p.agentId);
    let usable = overrides.get(p.agentId);
    if (usable === undefined) {
      usable = config === undefined ? [] : usableOverrides(config, await deps.oncall.overrides(p.agentId, nowMs));
      overrides.set(p.agentId, usable);
    }
    out.set(p.id, pagedNow(p, config, usable, nowMs));
  }
  return out;
}

export const PAGE_COLUMNS = ['Page', 'State', 'Paged', 'Severity', 'Opened', 'Agent', 'Policy'];

/** One page as a row (a card on a phone): its title links to it, its id below; a page stored damaged says so. */
export function pageRow(p: StoredPage, paged: PagedNow | null): Html {
  if (isDamagedPage(p)) {
    return html`<tr><th scope="row" class="title"><a href="/ui/pages/${p.id}">(stored damaged)</a> <span class="mono note">${p.id}</span></th>
<td data-label="State">${stateChip({ state: p.state, exhausted: false })}</td><td data-label="Paged" class="wrap">—</td><td data-label="Severity">—</td>
<td data-label="Opened" class="mono">${timeText(p.openedAtMs)}</td><td data-label="Agent">${p.agentId}</td><td data-label="Policy">${p.policy}</td></tr>`;
  }
  return html`<tr><th scope="row" class="title"><a href="/ui/pages/${p.id}">${p.title}</a> <span class="mono note">${p.id}</span></th>
<td data-label="State">${stateChip(p)}</td><td data-label="Paged" class="wrap">${pagedText(p, paged)}</td><td data-label="Severity">${p.severity}</td>
<td data-label="Opened" class="mono">${timeText(p.openedAtMs)}</td><td data-label="Agent">${p.agentId}</td><td data-label="Policy">${p.policy.id}</td></tr>`;
}
