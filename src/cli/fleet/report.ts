/**
 * Saying how complete an answer is (contract §15): stderr ends with `N/M hosts answered` and one
 * `name: reason` line per host that did not; `--json` carries the same as `hosts` and `complete`.
 * A reason is a few words (`timeout`, `connection refused`, `HTTP 401 (bad-signature)`), never a
 * token, a secret or a stack.
 */
import { RuntimeError, errorText } from '../../core/errors.js';
import type { CliContext } from '../context.js';

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

/** Rows written to stdout at a time: the envelope is never one string as large as every row together. */
const CHUNK_ROWS = 1000;

/**
 * `{"items": [...], "hosts": [...], "complete": <bool>}` on stdout (contract §15), each item the row
 * with its `host` first, written in chunks so peak memory does not hold a second copy of the answer.
 */
export function writeEnvelope<T extends object>(ctx: CliContext, rows: ReadonlyArray<{ host: string; item: T }>,
  hosts: readonly HostReport[]): void {
  ctx.stdout('{"items":[');
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const chunk = rows.slice(i, i + CHUNK_ROWS).map((r) => JSON.stringify({ host: r.host, ...r.item }));
    ctx.stdout(`${i > 0 ? ',' : ''}${chunk.join(',')}`);
  }
  ctx.stdout(`],"hosts":${JSON.stringify(hosts)},"complete":${String(isComplete(hosts))}}\n`);
}
