/**
 * Durations written for people: `30d`, `12h`, `15m`, `90s`, `500ms` (one number, one unit). Used by
 * retention in agent.yaml and by `--since 15m` on the command line (contract §10, §13).
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d{1,9})(ms|s|m|h|d|w)$/;

/** Milliseconds of a duration like `30d`; null when the text is not one. */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (m === null) return null;
  return Number(m[1]) * (UNIT_MS[m[2] as string] as number);
}

/** The largest whole unit that states `ms` exactly: 2592000000 → `30d`; nothing at all reads `0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
