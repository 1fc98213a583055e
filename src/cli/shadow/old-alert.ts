/**
 * An alert of the old pager's log as `svc shadow report --compare` holds it (contract §22.3), whichever
 * vendor's export it was read from (old-pager-log.ts picks the reader: opsgenie-alert-log.ts,
 * pagerduty-log-entries.ts).
 */
export const OLD_PAGERS = ['opsgenie', 'pagerduty'] as const;
export type OldPager = (typeof OLD_PAGERS)[number];

/** One notification the old pager logged: to whom (as the vendor names them), when, how. */
export interface OldNotice {
  atMs: number;
  /** The vendor's user: an email (Opsgenie usernames are), a name, or the vendor's user id when nothing else is known. */
  user: string;
  email: string | null;
  name: string | null;
  method: string | null;
}

export interface OldAlert {
  /** The vendor's own id of the alert (Opsgenie alert id, PagerDuty incident id). */
  id: string;
  /** Opsgenie `alias` or PagerDuty `incident_key`; null when the export does not carry it. */
  key: string | null;
  createdAtMs: number;
  title: string;
  notices: OldNotice[];
}
