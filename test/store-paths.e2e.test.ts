/**
 * Paths that name the live store in another way, against the built CLI and daemon: `svc backup` never
 * writes over the store or a file SQLite keeps beside it (a backup named svc.db-journal would be taken
 * for a journal and deleted at the next start), and `svc store copy` refuses the running daemon's store
 * however it is named. Compared by real path: symbolic links, to the file or to its directory.
 */
import assert from 'node:assert/strict';
import { existsSync, linkSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { runSvc } from './support/svc.js';

describe('paths that are the live store', () => {
  let d: Daemon;
  after(async () => { await d?.stop(); });

  it('svc backup refuses the store and its side files, by any path; svc store copy refuses a link to the running store', async () => {
    d = await startDaemon();
    const svc = (args: string[]) => runSvc(args, { env: d.env, cwd: d.dir });
    const db = join(d.home, 'svc.db');
    const links = join(d.home, '..', 'links');
    mkdirSync(links);
    symlinkSync(d.home, join(links, 'home'));
    symlinkSync(db, join(links, 'store.db'));
    symlinkSync(`${db}-journal`, join(links, 'journal'));
    const targets = [`${db}-journal`, `${db}-wal`, `${db}-shm`, join(links, 'home', 'svc.db-journal'), join(links, 'home', 'svc.db'),
      join(links, 'store.db'), join(links, 'journal')];
    for (const target of targets) {
      const r = await svc(['backup', target, '--force']);
      assert.equal(r.code, 1, `${target}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stderr, `svc backup: refusing to write a backup over the store itself or a file SQLite keeps beside it (${target} is `
        + `${target.includes('journal') ? `${db}-journal` : target.endsWith('-wal') ? `${db}-wal` : target.endsWith('-shm') ? `${db}-shm` : db}; `
        + `the store is ${db})\n`);
    }
    assert.equal(existsSync(`${db}-journal`), false, 'no journal-named backup was written');
    // A hard link to the store is the store too.
    linkSync(db, join(links, 'hard.db'));
    const hard = await svc(['backup', join(links, 'hard.db'), '--force']);
    assert.equal(hard.code, 1, hard.stdout);
    assert.match(hard.stderr, /^svc backup: refusing to write a backup over the store itself/);
    // Somewhere else is fine.
    const ok = await svc(['backup', join(links, 'backup.db')]);
    assert.equal(ok.code, 0, ok.stderr);

    for (const from of [join(links, 'store.db'), join(links, 'home', 'svc.db')]) {
      const copy = await svc(['store', 'copy', '--to', 'postgres://svc@127.0.0.1:1/svc', '--from', from]);
      assert.equal(copy.code, 1, copy.stdout);
      assert.equal(copy.stderr, `svc store copy: svc is running on ${from} (pid ${d.pid()}); stop it with \`svc down\` first\n`);
    }
  });
});
