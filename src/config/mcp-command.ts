/**
 * Whether an MCP server's command can be started (contract §13: `svc check` and `svc up` name a
 * missing one as a configuration error, exit 2, instead of a "successful" start whose server never
 * comes up). Mirrors how the supervisor spawns it (shell: false): a command with a slash is a path
 * relative to the server's working directory; a bare name is looked up on PATH.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file the command resolves to, or null when there is none that can be executed. */
export function findCommand(command: string, cwd: string, pathVar: string | undefined): string | null {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return executable(path) ? path : null;
  }
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(resolve(cwd, dir), command);
    if (executable(candidate)) return candidate;
  }
  return null;
}
