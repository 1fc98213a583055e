/**
 * What the admin socket does (contract §13: the only door for changes): each request validated by
 * the protocol's schema (admin-protocol.ts), then carried out — dead-letter replays, backups, config
 * reloads, pages, overrides, silences, calendar URLs. The socket is one caller; the team console
 * (console/team-console.ts), running inside the daemon, is the other: the same validation and the same
 * audit rows, not a second door.
 */
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { ReplayResult, Store } from '../store/store.js';
import type { AdminResponse, ParsedAdminRequest } from './admin-protocol.js';
import { MAX_ANSWER_IDS, adminRequestSchema } from './admin-protocol.js';
import { backupStore } from './backup.js';
import type { ReloadResult } from './config-reload.js';
import type { AdminOncallDeps } from './admin-oncall.js';
import { executeOncall } from './admin-oncall.js';

/** Dead letters per replay transaction: a few milliseconds of the writer each. */
const REPLAY_CHUNK = 500;
/** Who the audit rows of socket requests name (the socket's mode means: the daemon's own user). */
export const ADMIN_ACTOR = 'admin-socket';

export interface AdminOperationsDeps {
  store: Store;
  /** The store's file, so a backup can never be written over it (null: not a file store). */
  storePath: string | null;
  clock: Clock;
  pid: number;
  /** Replayed events are waiting: the dispatcher should look now, not at its next poll. */
  wake(): void;
  /** `svc reload` (config-reload.ts); absent: refused. */
  reload?: () => Promise<ReloadResult>;
  /** Pages, overrides, silences and calendars (contract §17.5, §17.6, §24.7); absent: those operations are refused. */
  oncall?: Omit<AdminOncallDeps, 'store' | 'clock'>;
  report(line: string): void;
}

export interface AdminOperations {
  /**
   * Validates `raw` (a request as parsed JSON) strictly and carries it out. Refusals, and expected
   * failures (a path that exists, a closed store), are `{ ok: false, error }` with their own text: it
   * names no secret.
   */
  run(raw: unknown): Promise<AdminResponse>;
}

export function createAdminOperations(deps: AdminOperationsDeps): AdminOperations {
  const { clock, store } = deps;

  /**
   * A replay in chunks of REPLAY_CHUNK letters, each its own store transaction with its audit rows,
   * so `--all` of 30,000 letters never holds the writer (and ingest) for one long transaction; the
   * dispatcher is woken after each chunk. The answer stays small: counts, and the first ids of each list.
   */
  async function replayInChunks(request: Extract<ParsedAdminRequest, { op: 'dlq.replay' }>): Promise<Extract<AdminResponse, { op: 'dlq.replay' }>> {
    const answer = { ok: true as const, op: 'dlq.replay' as const, replayed: [] as string[], missing: [] as string[], replayedCount: 0, missingCount: 0 };
    const take = (r: ReplayResult): void => {
      answer.replayedCount += r.replayed.length;
      answer.missingCount += r.missing.length;
      answer.replayed.push(...r.replayed.slice(0, MAX_ANSWER_IDS - answer.replayed.length));
      answer.missing.push(...r.missing.slice(0, MAX_ANSWER_IDS - answer.missing.length));
      if (r.replayed.length > 0) deps.wake();
    };
    if (request.ids !== undefined) {
      for (let i = 0; i < request.ids.length; i += REPLAY_CHUNK) {
        take(await store.replayDeadLetters({ ids: request.ids.slice(i, i + REPLAY_CHUNK) }, request.actor ?? ADMIN_ACTOR, clock.now(), request.via));
      }
      return answer;
    }
    const filter = { ...(request.source !== undefined ? { sourceId: request.source } : {}),
      ...(request.reason !== undefined ? { reason: request.reason } : {}) };
    for (let afterSeq = 0; ;) {
      const r = await store.replayDeadLetters({ ...filter, afterSeq, limit: REPLAY_CHUNK }, request.actor ?? ADMIN_ACTOR, clock.now(), request.via);
      take(r);
      if (r.lastSeq === undefined || r.replayed.length + r.missing.length < REPLAY_CHUNK) return answer;
      afterSeq = r.lastSeq;
    }
  }

  async function execute(request: ParsedAdminRequest): Promise<AdminResponse> {
    switch (request.op) {
      case 'ping':
        return { ok: true, op: 'ping', pid: deps.pid };
      case 'dlq.replay': {
        const answer = await replayInChunks(request);
        deps.report(`admin: replayed ${answer.replayedCount} dead letter(s)${answer.missingCount > 0 ? `, ${answer.missingCount} not found` : ''}`);
        return answer;
      }
      case 'backup': {
        const started = clock.monotonic();
        const result = await backupStore(store, request.path, { force: request.force, storePath: deps.storePath });
        await store.appendAudit({ kind: 'store.backup', actor: ADMIN_ACTOR, agentId: null,
          data: { path: result.path, bytes: result.bytes, durationMs: Math.round(clock.monotonic() - started) } }, clock.now());
        deps.report(`admin: backup of ${result.bytes} bytes written to ${result.path}`);
        return { ok: true, op: 'backup', ...result };
      }
      case 'config.reload': {
        if (deps.reload === undefined) return { ok: false, error: 'this daemon cannot reload its configuration: restart it' };
        const result = await deps.reload();
        return result.ok ? { ok: true, op: 'config.reload', files: result.files, agents: result.agents } : { ok: false, error: result.error };
      }
      case 'page.act':
      case 'override.add':
      case 'override.ls':
      case 'override.rm':
      case 'silence.add':
      case 'silence.ls':
      case 'silence.expire':
      case 'calendar.url':
        return executeOncall({ store, clock, engine: null, configs: new Map(), ...deps.oncall }, request);
    }
  }

  return {
    async run(raw) {
      const parsed = adminRequestSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { ok: false, error: `bad request: ${issue ? `${issue.path.join('.') || '(request)'}: ${issue.message}` : 'invalid'}` };
      }
      try {
        return await execute(parsed.data);
      } catch (err) {
        return { ok: false, error: errorText(err) };
      }
    },
  };
}
