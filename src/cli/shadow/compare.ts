/**
 * A shadow run held against the old pager's alert log (contract §22.3), pure: per alert, whether both
 * paged or only one, whether the same people were told, and how much later (or earlier) svc's first
 * notice came than the old pager's.
 *
 * - **Matching.** An old alert is svc's when its key (Opsgenie `alias`, PagerDuty `incident_key`)
 *   equals svc's incident key, or that key's SHA-256 in hex — what Alertmanager's own Opsgenie and
 *   PagerDuty receivers send for a group key. Alerts of one key (a re-fire, several agents) are one.
 * - **People.** The old pager names users by email or name; each is svc's person whose `login`
 *   equals the email, else whose `name` equals the name, else whose id is the email's local part or
 *   the name made an id (as `svc import` makes ids); anyone else is shown as the vendor names them.
 * - **Paged** means told at least one person. An old alert that notified nobody (and svc had none
 *   of its key) is not listed.
 */
import { createHash } from 'node:crypto';
import type { ShadowAlert } from '../../control-plane/shadow-report.js';
import type { OldAlert, OldNotice, OldPager } from './old-alert.js';

export const PAGED = ['both', 'svc-only', 'old-only'] as const;
export type Paged = (typeof PAGED)[number];

/** A person of oncall.yaml as /shadow lists them. */
export interface KnownPerson { id: string; name: string | null; login: string | null }

export interface ComparedAlert {
  key: string;
  title: string;
  paged: Paged;
  svc: { agents: string[]; openedAt: string; firstNoticeAt: string; people: string[] } | null;
  old: { ids: string[]; createdAt: string; firstNoticeAt: string; people: string[] } | null;
  /** Both paged: whether they told the same people; null otherwise. */
  samePeople: boolean | null;
  onlySvc: string[];
  onlyOld: string[];
  /** svc's first notice minus the old pager's, in seconds (positive: svc was later); null unless both paged. */
  delaySeconds: number | null;
}

export interface Comparison {
  oldPager: OldPager;
  alerts: ComparedAlert[];
  summary: { alerts: number; both: number; svcOnly: number; oldOnly: number; differentPeople: number;
    /** Over the alerts both paged: the median and the largest first-notice delay (svc minus old), in seconds. */
    delay: { medianSeconds: number; maxSeconds: number; svcLater: number; svcEarlier: number } | null };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const folded = (s: string): string => s.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
/** A name as `svc import` makes an id of it (import/slug-ids.ts): lowercase, accents dropped, anything else a single `-`. */
const asId = (name: string): string => name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
  .replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').replace(/[-.]+$/, '');

/** The svc person an old pager's user is, else the user as the vendor names them. */
export function personFor(n: Pick<OldNotice, 'user' | 'email' | 'name'>, people: readonly KnownPerson[]): string {
  const email = n.email === null ? null : folded(n.email);
  const name = n.name === null ? null : folded(n.name);
  const byLogin = email === null ? undefined : people.find((p) => p.login !== null && folded(p.login) === email);
  const byName = name === null ? undefined : people.find((p) => p.name !== null && folded(p.name) === name);
  const ids = [email === null ? null : asId(email.split('@')[0] ?? ''), name === null ? null : asId(name)];
  const byId = people.find((p) => ids.includes(p.id));
  return (byLogin ?? byName ?? byId)?.id ?? n.user;
}

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] as number : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export function compareShadow(svcAlerts: readonly ShadowAlert[], old: { vendor: OldPager; alerts: readonly OldAlert[] }, people: readonly KnownPerson[],
  window: { sinceMs: number | null; untilMs: number | null }): Comparison {
  // svc's alerts by key, and the keys an old alert may carry for each (the key, or its SHA-256).
  const svcByKey = new Map<string, ShadowAlert[]>();
  for (const a of svcAlerts) svcByKey.set(a.incidentKey, [...(svcByKey.get(a.incidentKey) ?? []), a]);
  const keyOf = new Map<string, string>();
  for (const key of svcByKey.keys()) {
    keyOf.set(key, key);
    keyOf.set(sha256(key), key);
  }
  const oldByKey = new Map<string, OldAlert[]>();
  for (const a of old.alerts) {
    if (window.sinceMs !== null && a.createdAtMs < window.sinceMs) continue;
    if (window.untilMs !== null && a.createdAtMs >= window.untilMs) continue;
    const key = (a.key === null ? undefined : keyOf.get(a.key)) ?? a.key ?? `${old.vendor}:${a.id}`;
    oldByKey.set(key, [...(oldByKey.get(key) ?? []), a]);
  }

  const alerts: ComparedAlert[] = [];
  for (const key of new Set([...svcByKey.keys(), ...oldByKey.keys()])) {
    const mine = svcByKey.get(key) ?? [];
    const theirs = oldByKey.get(key) ?? [];
    const svcNotices = mine.flatMap((a) => a.notices);
    const oldNotices = theirs.flatMap((a) => a.notices).sort((x, y) => x.atMs - y.atMs);
    if (svcNotices.length === 0 && oldNotices.length === 0) continue;
    const svcPeople = [...new Set(svcNotices.map((n) => n.person))].sort();
    const oldPeople = [...new Set(oldNotices.map((n) => personFor(n, people)))].sort();
    const svcFirst = svcNotices.map((n) => Date.parse(n.at)).sort((x, y) => x - y)[0];
    const oldFirst = oldNotices[0]?.atMs;
    const paged: Paged = svcFirst !== undefined && oldFirst !== undefined ? 'both' : svcFirst !== undefined ? 'svc-only' : 'old-only';
    const both = paged === 'both';
    alerts.push({
      key, title: mine[0]?.title || theirs[0]?.title || key, paged,
      svc: svcFirst === undefined ? null : { agents: [...new Set(mine.map((a) => a.agentId))].sort(),
        openedAt: mine.map((a) => a.openedAt).sort()[0] as string, firstNoticeAt: iso(svcFirst), people: svcPeople },
      old: oldFirst === undefined ? null : { ids: theirs.map((a) => a.id), createdAt: iso(Math.min(...theirs.map((a) => a.createdAtMs))),
        firstNoticeAt: iso(oldFirst), people: oldPeople },
      samePeople: both ? svcPeople.join('\n') === oldPeople.join('\n') : null,
      onlySvc: both ? svcPeople.filter((p) => !oldPeople.includes(p)) : [],
      onlyOld: both ? oldPeople.filter((p) => !svcPeople.includes(p)) : [],
      delaySeconds: both ? ((svcFirst as number) - (oldFirst as number)) / 1000 : null,
    });
  }
  const first = (a: ComparedAlert): string => [a.svc?.openedAt, a.old?.createdAt].filter((t): t is string => t !== undefined).sort()[0] ?? '';
  alerts.sort((x, y) => first(x).localeCompare(first(y)) || x.key.localeCompare(y.key));
  const delays = alerts.flatMap((a) => (a.delaySeconds === null ? [] : [a.delaySeconds]));
  return {
    oldPager: old.vendor,
    alerts,
    summary: { alerts: alerts.length, both: alerts.filter((a) => a.paged === 'both').length, svcOnly: alerts.filter((a) => a.paged === 'svc-only').length,
      oldOnly: alerts.filter((a) => a.paged === 'old-only').length, differentPeople: alerts.filter((a) => a.samePeople === false).length,
      delay: delays.length === 0 ? null : { medianSeconds: median(delays), maxSeconds: Math.max(...delays),
        svcLater: delays.filter((d) => d > 0).length, svcEarlier: delays.filter((d) => d < 0).length } },
  };
}
