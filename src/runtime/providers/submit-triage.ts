/**
 * `submit_triage` (contract §14.2): the one tool through which the model finishes a triage. Its
 * arguments are validated with zod; the JSON Schema offered to the model is generated from the same
 * schema, so the two cannot drift. There is no recipient field: who is told is the channel's business.
 */
import { z } from 'zod';
import type { SeverityFloor } from '../../config/schema.js';
import { parseAlertmanagerPayload } from './alertmanager.js';
import type { LlmToolSpec } from './llm-types.js';
import type { TriageDecision } from './provider.js';
import { factLines, factsOf, oneLine } from './message-facts.js';
import type { SeverityRaise } from './severity-floor.js';
import { applySeverityFloor } from './severity-floor.js';

export const SUBMIT_TRIAGE = 'submit_triage';

const MAX_SUMMARY_CHARS = 200;
const MAX_DETAILS_CHARS = 4000;

export const submitTriageSchema = z.strictObject({
  severity: z.enum(['P1', 'P2', 'P3']).describe('P1: wake someone up now. P2: needs attention this shift. P3: informational.'),
  summary: z.string().trim().min(1).max(MAX_SUMMARY_CHARS)
    .describe('One line for the on-call person, e.g. "HighErrorRate on api-1: 5xx at 12% since 03:10".'),
  details: z.string().max(MAX_DETAILS_CHARS).optional()
    .describe('Optional: what you found (runbook, likely cause, first steps), a few short lines.'),
});
export type Submission = z.infer<typeof submitTriageSchema>;

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

export const submitTriageTool: LlmToolSpec = {
  name: SUBMIT_TRIAGE,
  description: 'Record your triage of the event: its severity and the message for the on-call person. Call it exactly once, '
    + 'as your last action. Who receives the message is fixed by svc\'s configuration and cannot be chosen here.',
  inputSchema: jsonSchemaOf(submitTriageSchema),
};

/** Keys a model (or an injected instruction) might try in order to pick a recipient. */
const RECIPIENT_KEYS = /^(to|recipient|recipients|email|channel|user|cc|bcc|address|send_?to)$/i;

/**
 * Validates the arguments of one submit_triage call. A failure says what to correct, in words meant
 * for the model; it quotes key names and schema expectations, never the values.
 */
export function validateSubmission(input: unknown): { ok: true; submission: Submission } | { ok: false; error: string } {
  const parsed = submitTriageSchema.safeParse(input);
  if (parsed.success) return { ok: true, submission: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => RECIPIENT_KEYS.test(k)
        ? `unknown key "${k}": the recipient is fixed by configuration, remove it`
        : `unknown key "${k}"`).join('; ');
    }
    const path = issue.path.map(String).join('.') || '(arguments)';
    if (issue.code === 'invalid_value') return `${path}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    if (issue.code === 'invalid_type') return `${path}: expected ${issue.expected}`;
    if (issue.code === 'too_small') return `${path}: must not be empty`;
    if (issue.code === 'too_big') return `${path}: at most ${String(issue.maximum)} characters`;
    return `${path}: invalid`;
  });
  return { ok: false, error: `${SUBMIT_TRIAGE} arguments are invalid: ${problems.join('; ')}. Call ${SUBMIT_TRIAGE} again with corrected arguments.` };
}

/**
 * The decision the dispatcher sends. From the model: the severity (never below `llm.severityFloor`),
 * the summary and the details. From the payload itself, never from the model: the status, the alert
 * count, and for an Alertmanager group the title (alert name and instance) and the runbook and source
 * links below the model's words (message-facts.ts) — the summary is added, it never replaces them.
 */
export function decisionOf(submission: Submission, payload: unknown, triagedBy: string, floor: SeverityFloor):
  { decision: TriageDecision; raised: SeverityRaise | null } {
  const parsed = parseAlertmanagerPayload(payload);
  const am = parsed.ok ? parsed.payload : null;
  const facts = am === null ? null : factsOf(am);
  const status = am === null ? 'firing' : am.status;
  const { severity, raised } = applySeverityFloor(submission.severity, floor, am);
  const summary = oneLine(submission.summary, MAX_SUMMARY_CHARS);
  const title = facts === null ? summary : facts.title;
  const details = submission.details?.trim() ?? '';
  const lines = [`[${severity}] ${status === 'firing' ? 'FIRING' : 'RESOLVED'}: ${title}`];
  if (facts !== null) lines.push(summary);
  if (raised !== null) lines.push(`(the model said ${raised.from}; raised to ${raised.to} by llm.severityFloor)`);
  if (details !== '') lines.push(details);
  if (facts !== null) lines.push(...factLines(facts));
  return {
    decision: { notify: true, severity, status, title, text: lines.join('\n'), alertCount: am === null ? 1 : am.alerts.length, triagedBy },
    raised,
  };
}
