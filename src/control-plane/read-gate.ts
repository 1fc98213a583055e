/**
 * How many page reads the views serve at once (contract §11.4: reads never hold up ingest). A page
 * can carry 4 MiB: the gate bounds the memory that pages in flight hold (reader thread to socket) and
 * the event-loop time spent handing them over, so however many clients ask at once, a webhook's 202
 * waits behind at most `limit` of them. The others wait their turn, in arrival order, holding nothing
 * (the house semaphore, core/semaphore.ts).
 */
import { createSemaphore } from '../core/semaphore.js';
import type { Release, Semaphore } from '../core/semaphore.js';

/** Page reads served at once by default: enough for a fleet walking pages, bounded in memory (4 × 4 MiB). */
export const DEFAULT_READS_AT_ONCE = 4;

export type ReadGate = Semaphore;

export const createReadGate = (limit: number = DEFAULT_READS_AT_ONCE): ReadGate => createSemaphore(limit);

/**
 * This reader's turn at the gate: its release, or null when the client left while it waited (its
 * request's signal aborted) — then nothing is held and there is nobody to answer.
 */
export async function takeTurn(gate: ReadGate, signal: AbortSignal): Promise<Release | null> {
  try {
    return await gate.acquire(signal);
  } catch {
    return null; // acquire rejects only when the signal aborts
  }
}
