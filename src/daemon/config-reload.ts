/**
 * `svc reload` and SIGHUP: the configuration is loaded and validated whole, exactly as `svc up` loads
 * it; an invalid one, or one that changes what only a restart can (reload-plan.ts), is refused and the
 * running configuration keeps serving (audit `config.reload-refused`). So are files that would strand
 * what the store still names — an open page's step to a person or schedule oncall.yaml drops or a
 * channel channels.yaml drops, a live override for a person it drops (oncall/stranded-state.ts, issue 33.4). A valid one is applied by the
 * caller's `apply` — new builds of the agents for events started from now on — and audited as
 * `config.reloaded` with the sha256 of every file that changed. Reloads run one at a time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { LoadedAgent } from '../config/schema.js';
import { errorText } from '../core/errors.js';
import { ONCALL_FILE } from '../config/own-recipient.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import { sha256 } from './config-summary.js';
import type { AgentChanges, ReloadPlan, RunningConfig } from './reload-plan.js';
import { planReload } from './reload-plan.js';

/** What `svc up` loads and the daemon runs (cli/up.ts loadForUp). */
export interface DaemonConfig extends Omit<RunningConfig, 'oncallAgents'> {
  oncall: ReadonlyMap<string, OncallConfig>;
}

/** A configuration file that differs from the running one; sha256 null: the file is gone. */
export interface FileChange { path: string; sha256: string | null }

export type ReloadResult =
  | { ok: true; files: FileChange[]; agents: AgentChanges[] }
  | { ok: false; reason: RefusalReason; error: string };

/** Why a reload was refused: the `reason` of `config.reload-refused`. */
export const REFUSAL_REASONS = ['invalid', 'needs-restart', 'strands-state'] as const;
export type RefusalReason = typeof REFUSAL_REASONS[number];

export interface ConfigReloadDeps {
  initial: DaemonConfig;
  /** Loads and validates the configuration as `svc up` does; throws (a ConfigError naming file:line:col) when invalid. */
  load(): DaemonConfig;
  /** Puts a valid configuration to work; `previous` is the one it replaces. */
  apply(next: DaemonConfig, previous: DaemonConfig, plan: Extract<ReloadPlan, { kind: 'apply' }>): void;
  audit(entry: NewAuditEntry): Promise<void>;
  report(line: string): void;
  /**
   * What the new on-call and channel files would strand in the store, one line each
   * (oncall/stranded-state.ts); empty: nothing. Absent: not checked (a daemon without pages).
   */
  stranded?(next: DaemonConfig): Promise<string[]>;
}

export interface ConfigReload {
  /** `actor`: who asked (the admin socket, or `signal:SIGHUP`), as the audit row names it. */
  reload(actor: string): Promise<ReloadResult>;
}

/** The files of an agent directory `svc up` reads, besides its skills. */
const AGENT_FILES = ['agent.yaml', 'event-sources.yaml', 'channels.yaml', ONCALL_FILE, '.env'];

export function createConfigReload(deps: ConfigReloadDeps): ConfigReload {
  let running = deps.initial;
  let digests = configDigests(running.agents);
  let queue: Promise<unknown> = Promise.resolve();

  async function reloadOnce(actor: string): Promise<ReloadResult> {
    const refuse = async (reason: RefusalReason, error: string): Promise<ReloadResult> => {
      deps.report(`config reload refused (${reason}); the running configuration stays: ${error}`);
      await deps.audit({ kind: 'config.reload-refused', actor, agentId: null, data: { reason, error } });
      return { ok: false, reason, error };
    };
    let next: DaemonConfig;
    try {
      next = deps.load();
    } catch (err) {
      return refuse('invalid', errorText(err));
    }
    const plan = planReload(runningView(running), runningView(next));
    if (plan.kind === 'restart') {
      return refuse('needs-restart', `${plan.keys.length === 1 ? 'this change needs' : 'these changes need'} a restart (svc down, then svc up): ${plan.keys.join('; ')}`);
    }
    const stranded = (await deps.stranded?.(next)) ?? [];
    if (stranded.length > 0) {
      return refuse('strands-state', `the new configuration drops people, schedules or channels the store still names:\n  ${stranded.join('\n  ')}\n`
        + 'resolve those pages or remove those overrides (svc oncall override rm ID) first, or keep the person, schedule or channel');
    }
    const nextDigests = configDigests(next.agents);
    const files: FileChange[] = [...new Set([...Object.keys(digests), ...Object.keys(nextDigests)])].sort()
      .filter((path) => digests[path] !== nextDigests[path]).map((path) => ({ path, sha256: nextDigests[path] ?? null }));
    try {
      deps.apply(next, running, plan); // builds everything new first: a throw leaves the running set untouched
    } catch (err) {
      return refuse('invalid', errorText(err));
    }
    running = next;
    digests = nextDigests;
    const agents = plan.agents.filter((a) => a.keys.length + a.channelsAdded.length + a.channelsRemoved.length + a.channelsChanged.length > 0);
    await deps.audit({ kind: 'config.reloaded', actor, agentId: null, data: { files, agents } });
    deps.report(`config reloaded: ${files.length} file(s) changed${files.length > 0 ? ` (${files.map((f) => f.path).join(', ')})` : ''}`);
    return { ok: true, files, agents };
  }

  return {
    reload(actor) {
      const result = queue.then(() => reloadOnce(actor));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

function runningView(config: DaemonConfig): RunningConfig {
  return { agents: config.agents, oncallAgents: new Set(config.oncall.keys()), controlPlane: config.controlPlane, store: config.store,
    otlp: config.otlp };
}

/** The sha256 of every configuration file of the agents, by absolute path (skills from the text loaded). */
export function configDigests(agents: readonly LoadedAgent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const loaded of agents) {
    for (const name of AGENT_FILES) {
      const path = join(loaded.dir, name);
      if (existsSync(path)) out[path] = sha256(readFileSync(path));
    }
    for (const skill of loaded.skills) out[skill.path] = sha256(skill.text);
  }
  return out;
}
