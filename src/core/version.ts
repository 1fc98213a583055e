/** The package version, read once from package.json next to dist/ (or src/ under tsx), and where the package lies. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package's own folder (a checkout, or `$(npm root -g)/svc` once installed): its docs/ and templates/ are there. */
export function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url));
}

export function packageVersion(): string {
  const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const parsed = JSON.parse(raw) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
}
