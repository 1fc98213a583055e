/**
 * The CLI as a person sees it at 80 and 120 columns, against a real daemon (issue 26 item 5): whole
 * ids in every table, replay by a unique prefix, a REPLAYED column, events with status, severity,
 * title and triagedBy, `svc events show`, `svc audit --verify` printing the verdict only; and read
 * commands that reach a daemon of another `$SVC_HOME` fail naming the mismatch (two real daemons).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../src/cli/program.js';
import { cliHarness } from './support/cli.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { freePort, postAlert } from './support/http.js';
import { queryStore } from './support/store.js';
import { tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the CLI at 80 and 120 columns, against a real daemon', { timeout: 300_000 }, () => {
  let a: Daemon;
  let b: Daemon;
  const events: string[] = [];
  let letters: string[] = [];

  /** One command in-process, as on a terminal `columns` wide; its exit code, stdout and stderr. */
  const svc = async (d: { env: NodeJS.ProcessEnv; dir: string }, columns: number | null, ...args: string[]):
    Promise<{ code: number; out: string; err: string }> => {
    const h = cliHarness(d.env, d.dir);
    h.ctx.columns = () => columns;
    const code = await runCli(args, h.ctx);
    return { code, out: h.out(), err: h.err() };
  };

  before(async () => {
    const deadPort = await freePort(); // nothing listens: every delivery fails
    a = await startDaemon({
      agentYaml: ['dispatch: { maxAttempts: 1, initialBackoffMs: 10, maxBackoffMs: 10 }', 'store: { deliveryWindow: 0s }'].join('\n'),
      channelsYaml: ['channels:', `  - { id: pager, type: webhook, direction: outbound, url: "http://127.0.0.1:${deadPort}/hook", maxAttempts: 1, timeoutMs: 2000 }`].join('\n'),
    });
    b = await startDaemon();
    for (const fp of ['cli-1', 'cli-2', 'cli-3']) {
      const res = await postAlert(a.url, a.secret, a.fixture, fp);
      assert.equal(res.status, 202);
      events.push(String(res.json?.eventId));
    }
    await waitFor('three dead letters', () => (queryStore<{ n: number }>(a.home, 'SELECT count(*) AS n FROM dead_letters')[0]?.n ?? 0) >= 3, 120_000);
    letters = queryStore<{ id: string }>(a.home, 'SELECT id FROM dead_letters ORDER BY seq').map((r) => r.id);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
  });

  const lines = (text: string): string[] => text.trimEnd().split('\n');

  it('svc dlq: every line fits 80 columns and every id is whole, with REPLAYED', async () => {
    const r = await svc(a, 80, 'dlq');
    assert.equal(r.code, 0, r.err);
    const [head, ...rows] = lines(r.out);
    assert.equal(head, 'TS                    ID                                    REASON      REPLAYED');
    assert.equal(rows.length, 3);
    for (const row of rows) {
      assert.ok(row.length <= 80, `${row.length}: ${row}`);
      assert.match(row, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d… {2}[0-9a-f-]{36} {2}delivery-… {2}no$/);
    }
    assert.deepEqual(rows.map((row) => row.split(/ {2,}/)[1]).sort(), [...letters].sort());
    const wide = await svc(a, 120, 'dlq');
    assert.match(lines(wide.out)[0] ?? '', /^TS {24}ID {36}REASON {11}REPLAYED {2}TRIES {2}ERROR$/);
  });

  it('svc dlq replay PART replays the one letter whose id ends (or starts) so; unknown: exit 1, saying so', async () => {
    const [letter] = letters;
    assert.ok(letter !== undefined);
    const unknown = await svc(a, 80, 'dlq', 'replay', 'ffffffff-ffff');
    // A part no letter has (ids start with their time, years away from ffffffff; one in 2^48 ends so).
    if (!letters.some((l) => l.endsWith('ffffffff-ffff'))) {
      assert.equal(unknown.code, 1);
      assert.equal(unknown.err, 'svc dlq replay: no dead-letter id starts or ends with ffffffff-ffff\n');
    }
    // The end of the id: letters of one minute share their start (their time), never their random end.
    const r = await svc(a, 80, 'dlq', 'replay', letter.slice(-12));
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `svc dlq replay: replayed 1 dead letter(s): ${letter}\n`);
    const after120 = await svc(a, 120, 'dlq');
    const row = lines(after120.out).find((l) => l.includes(letter)) ?? '';
    assert.match(row, new RegExp(`^\\S+ {2}${letter} {2}delivery-failed {2}yes \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ`));
  });

  it('svc events: status, severity, title (from triage) and whole ids at 80 and 120 columns', async () => {
    const narrow = await svc(a, 80, 'events');
    assert.equal(narrow.code, 0, narrow.err);
    const [head, ...rows] = lines(narrow.out);
    assert.equal(head, 'TS                    ID                                    STATUS  TITLE');
    for (const row of rows) {
      assert.ok(row.length <= 80, `${row.length}: ${row}`);
      assert.match(row, /^\S+… {2}[0-9a-f-]{36} {2}firing {2}HighErrorRa…$/);
    }
    assert.deepEqual(rows.map((row) => row.split(/ {2,}/)[1]).sort(), [...events].sort());
    const wide = await svc(a, 120, 'events');
    const [wideHead, ...wideRows] = lines(wide.out);
    assert.equal(wideHead, `TS${' '.repeat(24)}ID${' '.repeat(36)}STATUS  SEV  TITLE${' '.repeat(28)}TRIAGED BY`);
    for (const row of wideRows) {
      assert.ok(row.length <= 120, row);
      assert.match(row, /^\S{24} {2}[0-9a-f-]{36} {2}firing {2}P1 {3}HighErrorRate on checkout-api-… {2}rules$/);
    }
  });

  it('svc events show PART prints the whole event; its triage; its payload', async () => {
    const [id] = events;
    assert.ok(id !== undefined && UUID.test(id));
    const r = await svc(a, 80, 'events', 'show', id.slice(-12));
    assert.equal(r.code, 0, r.err);
    const out = lines(r.out);
    assert.equal(out[0], `event ${id}`);
    assert.equal(out[6], '  fingerprint  cli-1');
    assert.equal(out[7], '  triage       firing P1 "HighErrorRate on checkout-api-7f9c:8080" by rules');
    const stored = queryStore<{ payload: string }>(a.home, 'SELECT payload FROM events WHERE id = ?', id)[0]?.payload ?? '';
    assert.deepEqual(JSON.parse(out.slice(9, -1).join('\n')), JSON.parse(stored));
    assert.equal(out.at(-1), `(its story: svc explain ${id})`);
  });

  it('svc audit --verify prints the verdict only; --rows adds the rows', async () => {
    const r = await svc(a, 80, 'audit', '--verify');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^chain ok: \d+ rows checked, head seq \d+ [0-9a-f]{64}\n$/);
    const rows = await svc(a, 80, 'audit', '--verify', '--rows');
    const printed = lines(rows.out);
    assert.match(printed[0] ?? '', /^SEQ {2}TS {20}KIND {2,}ACTOR {2,}HASH$/);
    for (const line of printed.slice(0, -1)) assert.ok(line.length <= 80, line);
    assert.ok(printed.length > 10);
    assert.match(printed.at(-1) ?? '', /^chain ok: /);
  });

  describe('read commands check they reached the daemon of their own $SVC_HOME', () => {
    it('an empty home with another home\'s daemon on its default port: exit 1, naming both', async () => {
      const empty = tempEnv();
      try {
        // SVC_METRICS_PORT is the default port's stand-in: a test cannot take 9464 on a shared machine.
        const env = { ...empty.env, SVC_METRICS_PORT: String(a.cpPort) };
        const message = `svc: no svc runs in $SVC_HOME ${empty.home}, and the daemon at ${a.cp} (pid ${a.pid()}) belongs to another home; `
          + 'start this one (svc up), set SVC_HOME to that daemon\'s home, or name it with --url\n';
        for (const args of [['ps'], ['events'], ['dlq'], ['audit'], ['pages'], ['oncall'], ['logs'], ['explain', events[0] ?? ''], ['events', 'show', 'a']]) {
          const r = await svc({ env, dir: empty.work }, 80, ...args);
          assert.deepEqual([r.code, r.out, r.err], [1, '', message], `svc ${args.join(' ')}`);
        }
        const named = await svc({ env, dir: empty.work }, 80, 'ps', '--url', a.cp);
        assert.equal(named.code, 0, 'with --url the listener is named on purpose');
        assert.match(named.out, new RegExp(`^svc pid ${a.pid()},`));
      } finally {
        empty.cleanup();
      }
    });

    it('a home whose up-state points at another daemon: exit 1, naming its own pid', async () => {
      const stateFile = join(b.home, 'up-state.json');
      const saved = readFileSync(stateFile, 'utf8');
      writeFileSync(stateFile, JSON.stringify({ ...JSON.parse(saved) as object, controlPlane: a.cp }));
      try {
        const r = await svc(b, 80, 'events');
        assert.equal(r.code, 1);
        assert.equal(r.err, `svc: the daemon at ${a.cp} (pid ${a.pid()}) is not the daemon of $SVC_HOME ${b.home} (pid ${b.pid()}); `
          + 'set SVC_HOME to that daemon\'s home, or name it with --url\n');
      } finally {
        writeFileSync(stateFile, saved);
      }
      const own = await svc(b, 80, 'ps');
      assert.equal(own.code, 0, own.err);
    });
  });
});
