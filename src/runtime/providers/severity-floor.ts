/**
 * `llm.severityFloor`: the lowest severity a model may give an event. By default (`rules`) it is the
 * severity the offline rules provider gives the same event, so a model — or an alert's text steering
 * it — can raise a page but never quietly turn a P1 into a P3. `P3` lets the model decide alone.
 */
import type { SeverityFloor } from '../../config/schema.js';
import type { Severity } from '../channels/channel.js';
import type { AlertmanagerPayload } from './alertmanager.js';
import { SEVERITY_RANK, rulesSeverity } from './rules-provider.js';

export interface SeverityRaise {
  /** What the model answered. */
  from: Severity;
  /** What is sent. */
  to: Severity;
  /** Where the floor came from: the rules' severity for this event, or a fixed one. */
  floor: SeverityFloor;
}

/** The severity to send and, when the model's answer was below the floor, what was raised. */
export function applySeverityFloor(answer: Severity, floor: SeverityFloor, payload: AlertmanagerPayload | null):
  { severity: Severity; raised: SeverityRaise | null } {
  // A payload the rules cannot read has no rules severity: only a fixed floor applies to it.
  const minimum: Severity = floor === 'rules' ? (payload === null ? 'P3' : rulesSeverity(payload)) : floor;
  if (SEVERITY_RANK[answer] <= SEVERITY_RANK[minimum]) return { severity: answer, raised: null };
  return { severity: minimum, raised: { from: answer, to: minimum, floor } };
}
