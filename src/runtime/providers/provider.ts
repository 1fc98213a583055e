/** Providers decide what an event means; `rules` is built in and offline. */
import type { EventRecord } from '../../store/store.js';
import type { Severity } from '../channels/channel.js';

export interface TriageDecision {
  /** false: nothing to tell anyone (e.g. an empty alert group). */
  notify: boolean;
  severity: Severity;
  status: 'firing' | 'resolved';
  /** One line, e.g. "HighLatency on api-1". */
  title: string;
  /** Message body for the on-call person. */
  text: string;
  alertCount: number;
}

export type TriageResult =
  | { ok: true; decision: TriageDecision }
  | { ok: false; retryable: boolean; reason: 'invalid-payload' | 'triage-failed'; error: string };

export interface Provider {
  readonly name: string;
  triage(event: EventRecord, signal: AbortSignal): Promise<TriageResult>;
}
