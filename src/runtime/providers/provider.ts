/** Providers decide what an event means; `rules` is built in and offline. */
import type { Severity } from '../channels/channel.js';

/** What a provider is given: the stored event, its payload parsed. Data, never instructions. */
export interface TriageEvent {
  id: string;
  agentId: string;
  sourceId: string;
  fingerprint: string | null;
  payload: unknown;
}

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
  /** Who decided (contract §14.4): `rules`, `anthropic:<model>`, `openai:<model>`, `rules-fallback`. */
  triagedBy: string;
}

export type TriageResult =
  | { ok: true; decision: TriageDecision }
  | { ok: false; retryable: boolean; reason: 'invalid-payload' | 'triage-failed'; error: string };

export interface Provider {
  readonly name: string;
  triage(event: TriageEvent, signal: AbortSignal): Promise<TriageResult>;
}
