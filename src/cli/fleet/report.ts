/**
 * Saying how complete an answer is (contract §15): stderr ends with `N/M hosts answered` and one
 * `name: reason` line per host that did not; `--json` carries the same as `hosts` and `complete`.
 * A reason is a few words (`timeout`, `connection refused`, `HTTP 401 (bad-signature)`), never a
 * token, a secret or a stack.
 */
import { RuntimeError, errorText } from '../../core/errors.js';

export interface HostReport {
  name: string;
  ok: boolean;
  /** Why the host did not answer; null when it did. */
  error: string | null;
}

/** The short reason for a failed host. */
export function failureBrief(err: unknown): string {
  if (err instanceof RuntimeError) return err.brief ?? shorten(err.message.split('\n', 1)[0] ?? err.code);
  // Not an expected failure (a bug): say so without a stack.
  return `internal error: ${shorten(errorText(err))}`;
}

function shorten(text: string): string {
  const clean = text.replace(/[^\x20-\x7E]/g, '?');
  return clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
}

/** `N/M hosts answered`, then `name: reason` for each host that did not; newline-terminated. */
export function completenessText(reports: readonly HostReport[]): string {
  const answered = reports.filter((r) => r.ok).length;
  const lines = [`${answered}/${reports.length} hosts answered`];
  for (const r of reports) if (!r.ok) lines.push(`${r.name}: ${r.error ?? 'no answer'}`);
  return `${lines.join('\n')}\n`;
}

export function isComplete(reports: readonly HostReport[]): boolean {
  return reports.every((r) => r.ok);
}
