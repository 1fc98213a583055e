/**
 * Ids of the rows the stores create (events, dead letters): UUIDs of version 7 (RFC 9562) — the
 * creation time in milliseconds first, then 74 random bits. Time first, because each id goes into a
 * unique b-tree index: random (version 4) ids put every insert on a random leaf of that index, and with
 * a million waiting events that is a different page of a 2 GiB file dirtied, logged in the WAL and
 * written back by the checkpoint for every event (docs/performance.md, "Waiting events cost disk").
 * Ids made one after the other land on the same last leaf. The 74 random bits keep an id unguessable.
 */
import { randomBytes } from 'node:crypto';

/** A version 7 UUID for a row created at `nowMs` (the writer's clock, not the wall clock). */
export function newRecordId(nowMs: number): string {
  const b = randomBytes(16);
  const ms = BigInt(Math.max(0, Math.floor(nowMs)));
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = 0x70 | ((b[6] as number) & 0x0f); // version 7
  b[8] = 0x80 | ((b[8] as number) & 0x3f); // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
