/**
 * The daemon's shutdown, declared once: each phase of start-daemon.ts registers its closer under its
 * name, and close runs the names in CLOSE_ORDER — the reverse of the start, except that the control
 * plane keeps answering (state "stopping") until the stop is recorded, so operators can watch the drain.
 */
import { errorText } from '../core/errors.js';

export const CLOSE_ORDER = [
  // The doors for changes close first, so no replay, backup or console action starts while the rest drains.
  'admin socket',
  'team console',
  'ingest',
  'dispatcher',
  'page listeners',
  'page engine',
  'backlog gauge',
  // Recorded while the store and the control plane are still open.
  'stop record',
  'control plane',
  // The readers the control plane and the team console share (log tailers), once both are closed.
  'shared reads',
  // The report cache's warm-up and checkpoints: stopped between chunks, before the store closes.
  'report facts',
  'channels',
  'mcp servers',
  'agent logs',
  'leader duties',
  'otlp bridge',
  'store',
] as const;
export type ClosePhase = (typeof CLOSE_ORDER)[number];

export interface Closers {
  /** Registers a closer; several under one phase close in reverse order of registration. */
  add(phase: ClosePhase, close: () => Promise<void> | void): void;
  /** Closes every registered phase in CLOSE_ORDER; a failing closer is reported and the rest still run. */
  closeAll(): Promise<void>;
}

export function createClosers(report: (line: string) => void): Closers {
  const byPhase = new Map<ClosePhase, Array<() => Promise<void> | void>>();
  return {
    add(phase, close) {
      byPhase.set(phase, [...(byPhase.get(phase) ?? []), close]);
    },
    async closeAll() {
      for (const phase of CLOSE_ORDER) {
        const closers = byPhase.get(phase) ?? [];
        byPhase.delete(phase);
        for (const close of closers.reverse()) {
          try {
            await close();
          } catch (err) {
            report(`shutdown: closing ${phase} failed: ${errorText(err)}`);
          }
        }
      }
    },
  };
}

/** Closes every one of `parts`, in order, even when one fails; then throws the first failure. */
export async function closeEach(parts: ReadonlyArray<{ close(): Promise<void> | void }>): Promise<void> {
  let failed: { err: unknown } | null = null;
  for (const part of parts) {
    try {
      await part.close();
    } catch (err) {
      failed ??= { err };
    }
  }
  if (failed !== null) throw failed.err;
}
