/**
 * When a page's earlier join notices reached the wire (contract §21.7: at most one join notice per
 * page and person a minute, measured where people see them), read from the page's own audit trail:
 * each notice is a `page.notified` row (its `kind` `join` or `joined-acked`) whose outcome row —
 * `message.delivered` (or `message.shadowed`), `message.failed`, `page.notice-cancelled`,
 * `notification.quarantined` — names the same deliveryId. An outcome row is written after the
 * channel has the bytes, so its time is no earlier than the wire's: spacing from it keeps the gap.
 */
import type { JoinsOut } from '../../oncall/join-spacing.js';
import type { ListedAuditRow } from '../../store/store.js';
import { rowData } from './page-message.js';

const JOIN_KINDS: ReadonlySet<unknown> = new Set(['join', 'joined-acked']);
const SENT: ReadonlySet<string> = new Set(['message.delivered', 'message.shadowed']);
/** Outcomes of a notice that never reached the wire, or never will. */
const NOT_SENT: ReadonlySet<string> = new Set(['message.failed', 'page.notice-cancelled', 'notification.quarantined']);

export function joinsOutOf(timeline: readonly ListedAuditRow[]): JoinsOut {
  const notices = new Set<string>();
  const sentAtMs = new Map<string, number>();
  const ended = new Set<string>();
  for (const row of timeline) {
    const data = rowData(row.dataText);
    const id = data?.deliveryId;
    if (typeof id !== 'string') continue;
    if (row.kind === 'page.notified' && JOIN_KINDS.has(data?.kind)) notices.add(id);
    else if (SENT.has(row.kind)) sentAtMs.set(id, Date.parse(row.ts));
    else if (NOT_SENT.has(row.kind)) ended.add(id);
  }
  let lastOutAtMs: number | null = null;
  let onItsWay = false;
  for (const id of notices) {
    const at = sentAtMs.get(id);
    if (at !== undefined && Number.isFinite(at)) lastOutAtMs = Math.max(lastOutAtMs ?? at, at);
    else if (!ended.has(id)) onItsWay = true;
  }
  return { lastOutAtMs, onItsWay };
}
