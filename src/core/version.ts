/** The package version, read once from package.json next to dist/ (or src/ under tsx). */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const parsed = JSON.parse(raw) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
}
