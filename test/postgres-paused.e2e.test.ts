/**
 * A paused PostgreSQL (every server process SIGSTOPped: a frozen VM, a stuck storage layer) against the
 * built daemon: a webhook gets its 503 within the ingest's store deadline — inside the 10 s a sender
 * such as Alertmanager waits by default — instead of hanging until TCP gives up; once the database
 * runs again (SIGCONT) the sender's retry is taken and paged.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STORE_WRITE_DEADLINE_MS } from '../src/ingest/webhook-server.js';
import { postAlert } from './support/http.js';
import type { PgCluster } from './support/postgres.js';
import { startPgCluster } from './support/postgres.js';
import type { Replica } from './support/replicas.js';
import { startReplica } from './support/replicas.js';
import { readJsonLines } from './support/store.js';
import { waitFor } from './support/wait.js';

/** Alertmanager's default webhook timeout: what a sender waits before it gives up on its own. */
const SENDER_TIMEOUT_MS = 10_000;

/** The postmaster (first line of postmaster.pid) and every process it started. */
function serverPids(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster ? [Number(d)] : [];
    } catch {
      return [];
    }
  });
  return [postmaster, ...children];
}

describe('a paused PostgreSQL', { skip: process.platform === 'linux' ? false : 'reads /proc' }, () => {
  let pg: PgCluster;
  let daemon: Replica;
  let stopped: number[] = [];
  const resume = (): void => {
    for (const pid of stopped) {
      try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
    }
    stopped = [];
  };

  before(async () => {
    pg = await startPgCluster();
    daemon = await startReplica({ dbUrl: await pg.createDatabase('paused') });
  });
  after(async () => {
    resume();
    await daemon?.stop();
    pg?.close();
  });

  it('a webhook gets 503 within the store deadline, and the retry after SIGCONT is paged', async (t) => {
    const warm = await postAlert(daemon.url, daemon.secret, daemon.fixture, 'pg-warm');
    assert.equal(warm.status, 202);

    stopped = serverPids(pg.dataDir);
    assert.ok(stopped.length >= 2, 'the postmaster and its backends');
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');

    // As a sender with Alertmanager's default timeout sees it.
    const started = performance.now();
    const paused = await fetchWithin(SENDER_TIMEOUT_MS, () => postAlert(daemon.url, daemon.secret, daemon.fixture, 'pg-paused'));
    const elapsedMs = Math.round(performance.now() - started);
    t.diagnostic(`time to 503 with PostgreSQL paused: ${elapsedMs} ms (store deadline ${STORE_WRITE_DEADLINE_MS} ms)`);
    assert.equal(paused.status, 503, 'the sender got an answer before its own timeout');
    assert.equal(paused.json?.error, 'EUNAVAILABLE');
    const readyz = await fetch(`${daemon.cp}/readyz`);
    assert.equal(readyz.status, 503);

    resume();
    const retry = await waitFor('the retry to be taken', async () => {
      const r = await postAlert(daemon.url, daemon.secret, daemon.fixture, 'pg-paused');
      return r.status === 202 || r.status === 200 ? r : undefined;
    }, 60_000);
    const eventId = retry.json?.eventId;
    // 202, or 200 when the paused write committed after all: then the retry is a duplicate of a stored event.
    await waitFor('the page', () => readJsonLines(daemon.outFile).find((l) => l.eventId === eventId), 60_000);
  });
});

/** `op`'s result, or a rejection once `ms` passed without one (the sender giving up). */
async function fetchWithin<T>(ms: number, op: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms); });
  try {
    return await Promise.race([op(), giveUp]);
  } finally {
    clearTimeout(timer);
  }
}
