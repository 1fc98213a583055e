/**
 * A throwaway PostgreSQL cluster for one test file or bench run (contract §16): `initdb` into a temp
 * directory, `pg_ctl` on a free loopback port, password authentication over TCP (so URLs carry a
 * password, as in production), removed again by `close()`. Debian's `postgresql` package provides the
 * binaries (`.ci/run` installs it); no system service is used. `initdb` refuses to run as root, so
 * as root every server command runs as the `postgres` user (`runuser -u postgres --`).
 *
 * Fast settings (`fsync=off`, no full-page writes) unless `durable: true`: a test about durability,
 * and the benchmarks, ask for the real thing.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './http.js';

export const PG_USER = 'svc';
export const PG_PASSWORD = 'pw-test-Секрет-9';

export interface PgCluster {
  port: number;
  /** The server's data directory (its `postmaster.pid` names the server process). */
  dataDir: string;
  /** A connection URL (with the password) for database `db`. */
  url(db: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs one statement on database `db` as the superuser, behind any store's back. */
  query<T extends pg.QueryResultRow = Record<string, unknown>>(db: string, sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops the server (`immediate`: as a crash would) and starts it again on the same port. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops the server and removes its data directory. */
  close(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (found === undefined) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
  return found;
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
}

const live = new Set<PgCluster>();
let exitHook = false;

export async function startPgCluster(opts: { durable?: boolean } = {}): Promise<PgCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`, { mode: 0o600 });
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  run(join(bin, 'initdb'), ['-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth-host=scram-sha-256', '--auth-local=trust',
    '-E', 'UTF8', '--locale=C', '--no-sync']);
  // 100 sessions, PostgreSQL's own default: a test file's stores are closed after each case (the store
  // contract checks that their sessions are gone), and the replica e2e files run four daemons at most,
  // each with at most 12 (src/store/postgres/postgres-store.ts).
  const settings = (): string => [
    `-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'", '-c max_connections=100', '-c shared_buffers=64MB',
    ...(opts.durable ? [] : ['-c fsync=off', '-c full_page_writes=off', '-c synchronous_commit=off']),
  ].join(' ');
  const log = join(dir, 'log');
  let port = 0;
  const start = (): void => run(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-o', settings(), '-w', '-t', '60', 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast'): void => run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  // A free port is only free until someone binds it: another test file (own process) may take the same
  // one between freePort() and the server's bind. Then the server says so in its log; take another.
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      start();
      break;
    } catch (err) {
      const taken = existsSync(log) && /could not bind|Address already in use/i.test(readFileSync(log, 'utf8'));
      if (!taken || attempt === 3) throw err;
    }
  }

  const url = (db: string): string => `postgres://${PG_USER}:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${db}`;
  const query = async <T extends pg.QueryResultRow>(db: string, sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url(db) });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  let running = true;
  const cluster: PgCluster = {
    port,
    dataDir: data,
    url,
    query,
    async createDatabase(name) {
      await query('postgres', `CREATE DATABASE "${name.replace(/"/g, '')}"`);
      return url(name);
    },
    stop(mode) {
      stop(mode);
      running = false;
    },
    start() {
      start();
      running = true;
    },
    close() {
      live.delete(cluster);
      try {
        if (running) stop('immediate');
      } finally {
        running = false;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  live.add(cluster);
  if (!exitHook) {
    exitHook = true;
    // A test file that dies before its `after` still leaves no server behind.
    process.on('exit', () => { for (const c of [...live]) { try { c.close(); } catch { /* best effort */ } } });
  }
  return cluster;
}
