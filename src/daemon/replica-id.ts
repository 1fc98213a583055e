/**
 * The replica id (contract §16.6): stable across restarts of one `$SVC_HOME`, different between
 * homes. It prefixes the owner of every claim the daemon makes, so a restarted daemon gives back
 * the claims its previous run left (instead of letting them wait out their leases) and never those of
 * another replica sharing the store.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { hostname } from 'node:os';

const REPLICA_ID = /^[a-z0-9][a-z0-9.-]{0,62}-[0-9a-f]{8}$/;

export function loadReplicaId(path: string): string {
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (REPLICA_ID.test(existing)) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const host = hostname().toLowerCase().replace(/[^a-z0-9.-]/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40) || 'svc';
  const id = `${host}-${randomBytes(4).toString('hex')}`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${id}\n`, { mode: 0o600 });
  return id;
}

/** The owner of this run's claims: `<replica>/<run>`. */
export function runOwner(replicaId: string): string {
  return `${replicaId}/${randomUUID().slice(0, 8)}`;
}
