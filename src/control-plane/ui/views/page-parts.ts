/**
 * How the console shows a page at 3 a.m. (contract §24.8): its state as a word with a colour of its
 * own, its title first (wrapped, never cut), and who it is paging now and next — in a list and on
 * Now. The rows are cards on a phone (`table.cards`, console-style.ts).
 *
 * What a page says — what is wrong, its links, who is paged now and next — is the page-message model's
 * (§24.1, oncall/page-message-model.ts), in the words the channels use (oncall/page-text.ts): the
 * console renders the page as its latest message would tell it, times in the browser's zone (§24.5).
 */
import type { OncallConfig, Override } from '../../../oncall/oncall-config.js';
import type { PageRecord } from '../../../oncall/page.js';
import type { PageMessage } from '../../../oncall/page-message-model.js';
import { pageMessage } from '../../../oncall/page-message-model.js';
import { alertLines, pagedPieces } from '../../../oncall/page-text.js';
import { pagedNow } from '../../../oncall/paged-now.js';
import { usableOverrides } from '../../../oncall/schedule.js';
import type { StoredPage } from '../../../store/oncall-store.js';
import { isDamagedPage } from '../../../store/oncall-store.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { factList, timeText } from './parts.js';
import type { UiDeps } from './view-types.js';

/** A page's state as a word in its own colour; a triggered page that ran out of steps says so. */
export function stateChip(p: Pick<PageRecord, 'state' | 'exhausted'>): Html {
  return html`<span class="state state-${p.state}">${p.state}${p.exhausted ? ' (exhausted)' : ''}</span>`;
}

/**
 * `Paged: step 1 of 2: alice; next: bob at <time> (in 5m)`, the messages' words with the time in the
 * browser's zone (or who acknowledged it); `—` once nobody is paged.
 */
export function pagedText(p: PageRecord, m: PageMessage | null): Html {
  if (p.state === 'acknowledged') return html`acknowledged by ${p.acknowledgedBy ?? '?'}`;
  const pieces = m === null ? null : pagedPieces(m, timeText);
  return pieces === null ? html`—` : html`Paged: ${pieces}`;
}

/** What is wrong (§24.1): each alert's summary, its instance, its runbook and source as links — the lines every message has. */
export function whatIsWrong(m: PageMessage): Html {
  return factList(alertLines(m));
}

/**
 * Each of these pages as its latest message would tell it — what is wrong, who it pages now and next —
 * each agent's file and usable overrides read once; null for a page stored damaged.
 */
export async function messagesOf(deps: Pick<UiDeps, 'oncall'>, pages: readonly StoredPage[]): Promise<Map<string, PageMessage | null>> {
  const nowMs = deps.oncall.clock.now();
  const configs = new Map<string, OncallConfig>(deps.oncall.configs().map((c) => [c.agentId, c.config]));
  const overrides = new Map<string, readonly Override[]>();
  const out = new Map<string, PageMessage | null>();
  for (const p of pages) {
    if (isDamagedPage(p)) { out.set(p.id, null); continue; }
    // What happened is not shown: the console tells the page as it stands, whoever reads it.
    const happened = { kind: p.state === 'triggered' ? 'opened' as const : p.state };
    if (p.state === 'resolved') { out.set(p.id, pageMessage(p, happened, null, nowMs)); continue; }
    const config = configs.get(p.agentId);
    let usable = overrides.get(p.agentId);
    if (usable === undefined) {
      usable = config === undefined ? [] : usableOverrides(config, await deps.oncall.overrides(p.agentId, nowMs));
      overrides.set(p.agentId, usable);
    }
    out.set(p.id, pageMessage(p, happened, pagedNow(p, config, usable, nowMs), nowMs));
  }
  return out;
}

export const PAGE_COLUMNS = ['Page', 'State', 'Paged', 'Severity', 'Opened', 'Agent', 'Policy'];

/** One page as a row (a card on a phone): its title links to it, its id below; a page stored damaged says so. */
export function pageRow(p: StoredPage, message: PageMessage | null): Html {
  if (isDamagedPage(p)) {
    return html`<tr><th scope="row" class="title"><a href="/ui/pages/${p.id}">(stored damaged)</a> <span class="mono note">${p.id}</span></th>
<td data-label="State">${stateChip({ state: p.state, exhausted: false })}</td><td data-label="Paged" class="wrap">—</td><td data-label="Severity">—</td>
<td data-label="Opened" class="mono">${timeText(p.openedAtMs)}</td><td data-label="Agent">${p.agentId}</td><td data-label="Policy">${p.policy}</td></tr>`;
  }
  return html`<tr><th scope="row" class="title"><a href="/ui/pages/${p.id}">${p.title}</a> <span class="mono note">${p.id}</span></th>
<td data-label="State">${stateChip(p)}</td><td data-label="Paged" class="wrap">${pagedText(p, message)}</td><td data-label="Severity">${p.severity}</td>
<td data-label="Opened" class="mono">${timeText(p.openedAtMs)}</td><td data-label="Agent">${p.agentId}</td><td data-label="Policy">${p.policy.id}</td></tr>`;
}
