/**
 * One alert of a page as its messages tell it (contract §24.1): its name and where it fires, what it
 * says about itself (`summary`, else `description`), its runbook and its source. Taken from the event
 * at triage (runtime/providers/message-facts.ts) and kept on the page, so every message of the page —
 * an escalation an hour later too — says what is wrong.
 */

/** A summary is cut to this many characters (§24.1): a message is read on a phone. */
export const MAX_SUMMARY_CHARS = 300;

export interface PageAlert {
  /** `HighLatency on api-1`: the alert's name and instance (else job, else service). */
  name: string;
  /** The `summary` annotation, else `description`, on one line, at most MAX_SUMMARY_CHARS. */
  summary?: string;
  /** The `instance` label. */
  instance?: string;
  runbookUrl?: string;
  sourceUrl?: string;
}

/** What a page's alerts are: the listed ones, how many more, Alertmanager's own link. */
export interface PageAlerts {
  alerts: PageAlert[];
  /** Alerts of the event not listed (message-facts.ts lists at most five). */
  more: number;
  alertmanagerUrl?: string;
}
