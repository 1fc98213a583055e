/**
 * Which directory each agent id of one `$SVC_HOME` was scaffolded in (`$SVC_HOME/agents.json`), so a
 * second `svc init` cannot quietly reuse an id: two agents with one id would share a log file, their
 * rows in the store and their secrets. Written by `svc init` only; an entry whose directory no longer
 * holds that agent is stale and is taken over.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';

interface Registry {
  agents: Record<string, string>;
}

function registryPath(home: string): string {
  return join(home, 'agents.json');
}

function read(home: string): Registry {
  try {
    const parsed = JSON.parse(readFileSync(registryPath(home), 'utf8')) as Partial<Registry>;
    if (parsed.agents && typeof parsed.agents === 'object') return { agents: { ...parsed.agents } };
  } catch {
    // missing or unreadable: start afresh (the file is a convenience, never the source of truth)
  }
  return { agents: {} };
}

/** Whether `dir`/agent.yaml still declares `id` (a plain `id:` line at the top level). */
function declares(dir: string, id: string): boolean {
  try {
    const text = readFileSync(join(dir, 'agent.yaml'), 'utf8');
    return new RegExp(`^id:\\s*["']?${id.replace(/[.]/g, '\\.')}["']?\\s*(#.*)?$`, 'm').test(text);
  } catch {
    return false;
  }
}

/**
 * Records that `id` lives in `dir`. Throws a UsageError naming the other directory when another live
 * scaffold in this home already uses the id.
 */
export function claimAgentId(home: string, id: string, dir: string): void {
  const registry = read(home);
  const other = registry.agents[id];
  if (other !== undefined && other !== dir && existsSync(other) && declares(other, id)) {
    throw new UsageError(`svc init: agent id "${id}" is already used in this $SVC_HOME by ${other}; choose another with --id <id>`);
  }
  registry.agents[id] = dir;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const tmp = `${registryPath(home)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(registry, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, registryPath(home));
}
