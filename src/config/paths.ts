/** Where svc keeps its state: `$SVC_HOME` (default `~/.svc`) and the files inside it (contract §1). */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The svc home directory: `$SVC_HOME` when set and non-empty, else `~/.svc`. Always absolute, so a
 * detached daemon started from another working directory ends up in the same place.
 */
export function svcHome(env: NodeJS.ProcessEnv): string {
  const fromEnv = env.SVC_HOME;
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : join(homedir(), '.svc');
}

/** The secret `svc init --checkpoint-key` creates and the template references (contract §20.2). */
export const CHECKPOINT_SECRET = 'audit/checkpoint-key';

export interface HomePaths {
  home: string;
  /** Embedded SQLite store (WAL). */
  db: string;
  logs: string;
  /** Per-agent log file, one JSON record per line. The id is trusted: it passed ID_PATTERN. */
  log(agentId: string): string;
  secrets: string;
  pidFile: string;
  stateFile: string;
  /** stdout/stderr of a detached `svc up -d`. */
  upLog: string;
  /** This home's stable replica id (claims' owners, /status store.replica), created once. */
  replicaId: string;
  /** The running daemon's admin socket (contract §13), mode 0600. */
  adminSocket: string;
  /** Signed checkpoints of the audit chain, one JSON per line (contract §20.2). */
  checkpoints: string;
}

export function homePaths(home: string): HomePaths {
  const logs = join(home, 'logs');
  return {
    home,
    db: join(home, 'svc.db'),
    logs,
    log: (agentId) => join(logs, `${agentId}.log`),
    secrets: join(home, 'secrets'),
    pidFile: join(home, 'up.pid'),
    stateFile: join(home, 'up-state.json'),
    upLog: join(home, 'up.log'),
    replicaId: join(home, 'replica-id'),
    adminSocket: join(home, 'admin.sock'),
    checkpoints: join(home, 'checkpoints.jsonl'),
  };
}
