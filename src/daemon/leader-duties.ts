/**
 * What one replica at a time does (contract §16.4): the SIEM exporters, the signed checkpoints of
 * the chain (§20.2), retention, and the duties added once their parts exist (`add`: the Pushover
 * receipts the page engine's messages left, §21.3). The duties run
 * while this replica holds the store's leader lease, renewed every third of it; they stop as soon as
 * a renewal fails and start again when the lease comes back. With the embedded store the daemon is
 * the only process, so it always leads.
 *
 * The dispatcher's back-pressure gate and the exporters' wake-up are stable facades over whichever
 * exporters run now: open, and a no-op, while another replica leads.
 */
import type { AuditConfig } from '../config/schema.js';
import type { RetentionSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { every } from '../core/every.js';
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import { ed25519PrivateKey } from '../core/ed25519-key.js';
import type { AuditExport } from '../export/audit-export.js';
import type { Checkpointer, CheckpointerStatus } from '../export/checkpointer.js';
import { startCheckpointer } from '../export/checkpointer.js';
import { createAuditExport } from '../export/audit-export.js';
import type { AuditMetrics } from '../metrics/registry.js';
import type { IntakeGate } from '../runtime/dispatch/dispatcher.js';
import type { Retention } from '../runtime/retention.js';
import { startRetention } from '../runtime/retention.js';
import type { Store } from '../store/store.js';

/** A duty added after the start: started whenever this replica takes the lease, closed when it loses it. */
export interface LeaderDuty {
  start(): { close(): Promise<void> };
}

export interface LeaderDuties {
  leader(): boolean;
  /** Runs `duty` while this replica leads, from now on; its handle's `close` stops it for good (before the parts it uses close). */
  add(duty: LeaderDuty): { close(): Promise<void> };
  gate: IntakeGate;
  /** Wakes the exporters after a write that appended to the chain. */
  notify(): void;
  /** The exporters' state for /status; null when none is configured or another replica leads. */
  exportStatus(): { exporters: ReturnType<AuditExport['status']>; backpressure: { active: boolean; backlogRows: number } } | null;
  /** The checkpointer's state for /status; null when checkpoints are not configured or another replica leads. */
  checkpointStatus(): CheckpointerStatus | null;
  close(): Promise<void>;
}

export async function startLeaderDuties(deps: {
  store: Store;
  clock: Clock;
  holder: string;
  leaseMs: number;
  audit: AuditConfig | null;
  auditMetrics: AuditMetrics;
  retention: RetentionSettings;
  windowMs: number;
  hostname: string;
  pid: number;
  log: Log;
  /** `$SVC_HOME/checkpoints.jsonl` (used when `audit.checkpoints` is set). */
  checkpointsPath: string;
  report: (line: string) => void;
}): Promise<LeaderDuties> {
  const { store, clock, report } = deps;
  let exporting: AuditExport | null = null;
  let retention: Retention | null = null;
  let checkpointer: Promise<Checkpointer | null> | null = null;
  /** The checkpointer once started (for its status); null before, after, or when it failed to start. */
  let signer: Checkpointer | null = null;
  const checkpoints = deps.audit?.checkpoints;
  // Parsed once: the loader checked it is an Ed25519 PEM key.
  const checkpointKey = checkpoints ? ed25519PrivateKey(checkpoints.key) : null;
  let leading = false;
  let closed = false;
  /** The added duties, and each one's running instance while this replica leads. */
  const added = new Map<LeaderDuty, { close(): Promise<void> } | null>();

  const begin = (): void => {
    if (deps.audit && deps.audit.export.length > 0) {
      exporting = createAuditExport({ store, config: deps.audit, metrics: deps.auditMetrics, clock, hostname: deps.hostname,
        pid: deps.pid, log: deps.log });
      exporting.start();
    }
    if (checkpoints && checkpointKey) {
      const starting = startCheckpointer({ store, clock, key: checkpointKey, everyRows: checkpoints.everyRows,
        everySeconds: checkpoints.everySeconds, filePath: deps.checkpointsPath, log: deps.log,
        onCheckpoint: () => exporting?.notify(),
        onAlarm: (alarm) => {
          deps.auditMetrics.checkpointContradicted.set(alarm === null ? 0 : 1);
          if (alarm !== null) exporting?.notify(); // its audit row is on the way to the SIEM
        } })
        .then((started) => {
          if (checkpointer === starting) signer = started;
          return started;
        }, (err: unknown) => {
          report(`audit checkpoints did not start: ${errorText(err)}`);
          return null;
        });
      checkpointer = starting;
    }
    for (const duty of added.keys()) added.set(duty, duty.start());
    retention = startRetention({ store, clock, retention: deps.retention, windowMs: deps.windowMs,
      onError: (err) => report(`retention failed: ${errorText(err)}`),
      onPruned: (n) => report(`retention: pruned ${n.events} event(s), ${n.deadLetters} dead letter(s), ${n.fingerprints} fingerprint(s)`) });
  };
  const end = async (final = false): Promise<void> => {
    const pruning = retention;
    retention = null;
    const signing = checkpointer;
    checkpointer = null;
    signer = null;
    await (await signing)?.close(final);
    const stopping = exporting;
    exporting = null;
    const running = [...added.entries()].flatMap(([duty, instance]) => {
      added.set(duty, null);
      return instance === null ? [] : [instance.close()];
    });
    await Promise.all([pruning?.close(), stopping?.close(), ...running]);
  };

  const renew = async (): Promise<void> => {
    let now: boolean;
    try {
      now = await store.acquireLeadership(deps.holder, deps.leaseMs, clock.now());
    } catch (err) {
      report(`leader lease: ${errorText(err)}`);
      now = false; // a lease that cannot be renewed may already belong to another replica
    }
    if (closed || now === leading) return;
    leading = now;
    report(now ? 'leader lease taken: SIEM export, checkpoints and retention run here' : 'leader lease lost: SIEM export, checkpoints and retention stop here');
    if (now) begin();
    else await end();
  };
  await renew();
  const renewing = every({ clock, intervalMs: Math.max(100, Math.floor(deps.leaseMs / 3)), run: renew, onError: (err) => report(`leader lease: ${errorText(err)}`) });

  return {
    leader: () => leading,
    add(duty) {
      added.set(duty, leading ? duty.start() : null);
      return {
        async close() {
          const instance = added.get(duty);
          added.delete(duty);
          await instance?.close();
        },
      };
    },
    gate: {
      active: () => exporting?.gate.active() ?? false,
      whenOpen: (signal) => exporting?.gate.whenOpen(signal) ?? Promise.resolve(),
    },
    notify: () => exporting?.notify(),
    checkpointStatus: () => signer?.status() ?? null,
    exportStatus: () => (exporting === null ? null : {
      exporters: exporting.status(),
      backpressure: { active: exporting.gate.active(), backlogRows: exporting.backlog().rows },
    }),
    async close() {
      closed = true;
      await renewing.close();
      // Still leading (the lease is given up below): the final checkpoint is this replica's to sign.
      await end(leading);
      if (leading) await store.releaseLeadership(deps.holder).catch(() => undefined);
      leading = false;
    },
  };
}
