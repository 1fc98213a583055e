/**
 * What a shadow run would have done, per alert (contract §22.3): from its `message.shadowed` rows —
 * each one a message svc would have sent and did not, status updates aside — grouped by the alert they belong to, with when
 * it opened, and who would have been told, when and through what. Pure: the /shadow route reads the
 * rows, pages, events and on-call files, this puts them together.
 *
 * An alert is an incident key of an agent: a page's own key, or for a message without a page (a
 * route's `notify:`, an agent without oncall.yaml) the key its event would open a page under —
 * `incidents.key` of the agent's oncall.yaml, else Alertmanager's `groupKey`. That key is what
 * `svc shadow report --compare` matches against the old tool's alias or incident key.
 */
import { isoTs } from '../core/clock.js';
import { incidentKey } from '../oncall/incident-key.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { PageRecord } from '../oncall/page.js';
import { STATUS_UPDATE_KINDS } from '../report/page-facts.js';

/** One `message.shadowed` row, its data decoded. */
export interface ShadowRow {
  tsMs: number;
  agentId: string;
  data: Readonly<Record<string, unknown>>;
}

/** Someone svc would have told, when and how. `person` is `-` for a channel's own recipient. */
export interface ShadowNotice {
  at: string;
  person: string;
  /** The person's `name` and `login` in oncall.yaml (how the comparison knows them in the old tool); null when not set. */
  name: string | null;
  login: string | null;
  channel: string;
  channelType: string;
  deliveryId: string;
}

export interface ShadowAlert {
  agentId: string;
  incidentKey: string;
  /** The page, when the alert opened one. */
  pageId: string | null;
  openedAt: string;
  title: string;
  severity: string;
  notices: ShadowNotice[];
  firstNoticeAt: string;
}

/** What the rows point at, as the store and the loaded files have them. */
export interface ShadowSources {
  page(pageId: string): PageRecord | undefined;
  event(eventId: string): { tsMs: number; payload: unknown; fingerprint: string | null } | undefined;
  config(agentId: string): OncallConfig | undefined;
}

const text = (d: Readonly<Record<string, unknown>>, key: string): string | null => (typeof d[key] === 'string' ? d[key] : null);

/**
 * A status update (an ack, an escalation past someone, a resolve: §21.1) tells, it does not wake: it
 * is no notice here. Its row says so by `pageKind`; rows written before they carried it count.
 */
const isStatusUpdate = (d: Readonly<Record<string, unknown>>): boolean => (STATUS_UPDATE_KINDS as readonly unknown[]).includes(d.pageKind);

export function shadowAlerts(rows: readonly ShadowRow[], sources: ShadowSources): ShadowAlert[] {
  const alerts = new Map<string, ShadowAlert & { openedMs: number }>();
  for (const row of rows) {
    const d = row.data;
    if (isStatusUpdate(d)) continue;
    const pageId = text(d, 'pageId');
    const eventId = text(d, 'eventId') ?? '';
    const page = pageId === null ? undefined : sources.page(pageId);
    const event = page === undefined ? sources.event(eventId) : undefined;
    const config = sources.config(row.agentId);
    const key = page?.incidentKey
      ?? incidentKey(config?.incidents.key ?? { kind: 'groupKey' }, event?.payload ?? null, event?.fingerprint ?? eventId);
    const id = `${row.agentId}\n${key}`;
    let alert = alerts.get(id);
    const openedMs = page?.openedAtMs ?? event?.tsMs ?? row.tsMs;
    if (alert === undefined) {
      alert = { agentId: row.agentId, incidentKey: key, pageId: page?.id ?? pageId, openedAt: isoTs(openedMs), openedMs,
        title: page?.title ?? text(d, 'title') ?? '', severity: page?.severity ?? text(d, 'severity') ?? '', notices: [], firstNoticeAt: isoTs(row.tsMs) };
      alerts.set(id, alert);
    } else if (openedMs < alert.openedMs) {
      alert.openedMs = openedMs;
      alert.openedAt = isoTs(openedMs);
    }
    const person = text(d, 'person') ?? '-';
    const known = config?.people.find((p) => p.id === person);
    alert.notices.push({ at: isoTs(row.tsMs), person, name: known?.name ?? null, login: known?.login ?? null, channel: text(d, 'channelId') ?? '?',
      channelType: text(d, 'channelType') ?? '?', deliveryId: text(d, 'deliveryId') ?? '?' });
  }
  return [...alerts.values()]
    .map(({ openedMs: _opened, ...a }) => {
      const notices = [...a.notices].sort((x, y) => x.at.localeCompare(y.at));
      return { ...a, notices, firstNoticeAt: notices[0]?.at ?? a.firstNoticeAt };
    })
    .sort((x, y) => x.openedAt.localeCompare(y.openedAt) || x.agentId.localeCompare(y.agentId) || x.incidentKey.localeCompare(y.incidentKey));
}
