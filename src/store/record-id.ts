/**
 * Ids of the rows the stores create (events, dead letters): UUIDs of version 7 (RFC 9562) — the
 * creation time in milliseconds first, then 74 random bits. Time first, because each id goes into a
 * unique b-tree index: random (version 4) ids put every insert on a random leaf of that index, and with
 * a million waiting events that is a different page of a 2 GiB file dirtied, logged in the WAL and
 * written back by the checkpoint for every event (docs/performance.md, "Waiting events cost disk").
 * Ids made one after the other land on the same last leaf. The 74 random bits keep an id unguessable.
 *
 * The random bytes come from a pool refilled from the CSPRNG (as `crypto.randomUUID` keeps one): a
 * `randomBytes` call per id was ≈5 % of the store writer's time under signed ingest, more than the
 * id's share of the row.
 */
import { randomFillSync } from 'node:crypto';

/** Random bytes per id: bytes 6–15 of the UUID (4 + 6 of their bits are version and variant). */
const RANDOM_BYTES = 10;
const pool = Buffer.alloc(RANDOM_BYTES * 128);
let used = pool.length;

/** A version 7 UUID for a row created at `nowMs` (the writer's clock, not the wall clock). */
export function newRecordId(nowMs: number): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += RANDOM_BYTES;
  pool[at] = 0x70 | ((pool[at] as number) & 0x0f); // version 7
  pool[at + 2] = 0x80 | ((pool[at + 2] as number) & 0x3f); // variant 10
  // 48 bits of milliseconds: exact in a double, so no BigInt.
  const time = Math.min(Math.max(0, Math.floor(nowMs)), 0xffff_ffff_ffff).toString(16).padStart(12, '0');
  const random = pool.toString('hex', at, at + RANDOM_BYTES);
  return `${time.slice(0, 8)}-${time.slice(8)}-${random.slice(0, 4)}-${random.slice(4, 8)}-${random.slice(8)}`;
}
