/**
 * An audit trail you can prove (contract §20), against the built daemon: signed checkpoints in
 * checkpoints.jsonl, in the chain and at a real HTTP SIEM receiver; `svc audit key`;
 * `svc audit --verify --checkpoints` catching a deleted or a re-hashed tail that the chain alone
 * cannot, and refusing forged, re-signed and foreign checkpoints; the checkpoint checked by openssl
 * exactly as docs/audit.md shows; the story of a delivered, a dead-lettered and a replayed event
 * (svc explain and GET /events/<id>/story), unverified once one of its rows is tampered with.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { signCheckpoint } from '../src/audit/checkpoint.js';
import type { Checkpoint } from '../src/audit/checkpoint.js';
import { sha256Hex, storedRowText } from '../src/audit/chain.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { startHttpReceiver } from './support/export-harness.js';
import type { HttpReceiver } from './support/export-harness.js';
import { freePort, postAlert } from './support/http.js';
import { auditRows, queryStore } from './support/store.js';
import { runSvc } from './support/svc.js';
import { waitFor } from './support/wait.js';

const pem = (k: KeyObject, type: 'pkcs8' | 'spki'): string => k.export({ type, format: 'pem' }).toString();

interface StoryAnswer {
  eventId: string;
  verified: boolean;
  verification: { problems: Array<{ seq: number; problem: string }>; chainIntactThroughSeq: number };
  rows: Array<{ seq: number; kind: string; hash: string; prevHash: string; data: Record<string, unknown> }>;
}

describe('an audit trail you can prove (contract §20)', () => {
  const keys = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');
  let daemon: Daemon;
  let siem: HttpReceiver;
  let pager: Server;
  let pagerStatus = 200;
  let stopped = false;
  const events: Record<'delivered' | 'dead' | 'replayed', string> = { delivered: '', dead: '', replayed: '' };
  const svc = (...args: string[]) => runSvc(args, { env: daemon.env, cwd: daemon.dir });
  const file = (name: string): string => join(daemon.home, name);

  before(async () => {
    siem = await startHttpReceiver();
    const pagerPort = await freePort();
    pager = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(pagerStatus).end('{}')); });
    await new Promise<void>((resolve) => pager.listen(pagerPort, '127.0.0.1', resolve));
    daemon = await startDaemon({
      secrets: { 'audit/checkpoint-key': pem(keys.privateKey, 'pkcs8') },
      agentYaml: [
        'dispatch: { maxAttempts: 1, initialBackoffMs: 10, maxBackoffMs: 10 }',
        // A failing channel dead-letters at once (the default is to keep trying for 30 minutes).
        'store: { deliveryWindow: 0s }',
        'audit:',
        '  export:',
        '    - id: siem',
        '      type: http',
        `      url: ${siem.url}`,
        '  batch: { minIntervalMs: 10, maxIntervalMs: 100 }',
        '  checkpoints:',
        '    key: ${secret:audit/checkpoint-key}',
        '    everyRows: 3',
        '    everySeconds: 1',
      ].join('\n'),
      channelsYaml: [
        'channels:',
        '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl, to: on-call }',
        `  - { id: pager, type: webhook, direction: outbound, url: "http://127.0.0.1:${pagerPort}/hook", maxAttempts: 1, timeoutMs: 2000 }`,
      ].join('\n'),
    });
  });
  after(async () => {
    if (!stopped) await daemon?.stop();
    await siem.close();
    await new Promise<void>((resolve) => { pager.closeAllConnections(); pager.close(() => resolve()); });
  });

  it('svc audit key prints the public key of the configured secret, PEM', async () => {
    const r = await svc('audit', 'key');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, pem(keys.publicKey, 'spki'));
  });

  it('a delivered, a dead-lettered and a replayed event each have their story, verified', async () => {
    const send = async (fp: string): Promise<string> => {
      const res = await postAlert(daemon.url, daemon.secret, daemon.fixture, fp);
      assert.equal(res.status, 202);
      return String(res.json?.eventId);
    };
    events.delivered = await send('story-delivered');
    await waitFor('delivered', () => queryStore(daemon.home, "SELECT 1 FROM events WHERE id = ? AND status = 'processed'", events.delivered)[0]);
    pagerStatus = 503;
    events.dead = await send('story-dead');
    events.replayed = await send('story-replayed');
    for (const id of [events.dead, events.replayed]) {
      await waitFor('dead letter', () => queryStore(daemon.home, 'SELECT 1 FROM dead_letters WHERE event_id = ?', id)[0]);
    }
    pagerStatus = 200;
    const letter = queryStore<{ id: string }>(daemon.home, 'SELECT id FROM dead_letters WHERE event_id = ?', events.replayed)[0]!;
    assert.equal((await svc('dlq', 'replay', letter.id)).code, 0);
    await waitFor('replayed and delivered', () => queryStore(daemon.home, "SELECT 1 FROM events WHERE id = ? AND status = 'processed'", events.replayed)[0]);

    const story = async (id: string): Promise<StoryAnswer> => {
      const r = await svc('explain', id, '--json');
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as StoryAnswer;
    };
    const chain = new Map(auditRows(daemon.home).map((r) => [r.seq, r]));
    const kinds = (s: StoryAnswer): string[] => s.rows.map((r) => r.kind);
    const delivered = await story(events.delivered);
    assert.deepEqual(kinds(delivered), ['event.accepted', 'triage.decision', 'message.delivered', 'message.delivered']);
    assert.deepEqual(delivered.rows.filter((r) => r.kind === 'message.delivered').map((r) => r.data.channelId).sort(), ['oncall-dm', 'pager']);
    const dead = await story(events.dead);
    // The file channel took the message, the pager did not (its failed try audited): dead-lettered.
    assert.deepEqual(kinds(dead), ['event.accepted', 'triage.decision', 'message.delivered', 'message.failed', 'event.dead-lettered']);
    const replayed = await story(events.replayed);
    // The replay triages again and sends only to the channel that had not delivered.
    assert.deepEqual(kinds(replayed), ['event.accepted', 'triage.decision', 'message.delivered', 'message.failed', 'event.dead-lettered',
      'dlq.replayed', 'triage.decision', 'message.delivered']);
    for (const s of [delivered, dead, replayed]) {
      assert.equal(s.verified, true);
      for (const row of s.rows) {
        assert.equal(row.hash, chain.get(row.seq)?.hash, `seq ${row.seq} as the chain holds it`);
        assert.equal(row.data.eventId, s.eventId);
      }
      assert.ok(s.rows.every((r, i) => i === 0 || r.seq > s.rows[i - 1]!.seq), 'in seq order');
    }

    // What a person reads: one line per row, seq and the start of its hash, then the verdict.
    const human = await svc('explain', events.replayed);
    assert.equal(human.code, 0, human.stderr);
    const lines = human.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `event ${events.replayed}`);
    const accepted = replayed.rows[0]!;
    assert.match(human.stdout, new RegExp(`Z  ${accepted.seq} +${accepted.hash.slice(0, 12)}  accepted from alertmanager, fingerprint story-replayed\\n`));
    assert.match(human.stdout, /dead-lettered: delivery-failed after 1 attempt\(s\), letter /);
    assert.match(human.stdout, new RegExp(`replayed by admin-socket, letter ${letter.id}`));
    assert.match(human.stdout, /delivered to pager, delivery [^,]+, attempt \d/);
    // The verdict, then what was checked and when: the story's rows to the head now, the rows before earlier.
    const verdictAt = lines.findIndex((l) => l.startsWith('verified: '));
    assert.match(lines[verdictAt]!, /^verified: every row hashes and links; the chain is intact through seq \d+$/);
    assert.match(lines[verdictAt + 1]!, new RegExp(`^checked at \\S+Z: seq ${accepted.seq} to \\d+ \\(the head\\)$`));
    assert.match(lines[verdictAt + 2]!, new RegExp(`^before seq ${accepted.seq}: verified whole at \\S+Z, then as appended$`));
    assert.equal(lines.length, verdictAt + 3);
  });

  it('a later row changed in place under the running daemon: the story is not called intact; put back, it is', async () => {
    // A row after the delivered event's story (the dead-lettered event's), changed with sqlite3 while the
    // daemon runs: the chain was verified whole long before, so only a check at the time of the story sees it.
    const later = queryStore<{ seq: number }>(daemon.home, "SELECT seq FROM audit WHERE kind = 'event.accepted' AND data LIKE ?", `%${events.dead}%`)[0]!;
    const sql = (statement: string): string => execFileSync('sqlite3', ['-cmd', '.timeout 10000', file('svc.db'), statement], { encoding: 'utf8' });
    const original = sql(`SELECT data FROM audit WHERE seq = ${later.seq}`).trim();
    sql(`UPDATE audit SET data = replace(data, 'story-dead', 'story-edited') WHERE seq = ${later.seq}`);
    const r = await svc('explain', events.delivered, '--json');
    assert.equal(r.code, 1, r.stdout);
    const s = JSON.parse(r.stdout) as StoryAnswer;
    assert.equal(s.verified, false);
    assert.deepEqual(s.verification.problems, [], 'the story\'s own rows are intact');
    assert.deepEqual((s.verification as { chainProblem?: unknown }).chainProblem, { seq: later.seq, kind: 'hash-mismatch' });
    sql(`UPDATE audit SET data = '${original.replace(/'/g, "''")}' WHERE seq = ${later.seq}`);
    assert.equal((await svc('explain', events.delivered)).code, 0);
  });

  it('unknown ids are 404 (svc explain exit 1), malformed ids 400 (svc explain exit 2)', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const r404 = await fetch(`${daemon.cp}/events/${unknown}/story`);
    assert.equal(r404.status, 404);
    assert.deepEqual(await r404.json(), { error: `no audit row concerns event ${unknown}` });
    const r400 = await fetch(`${daemon.cp}/events/not-an-id/story`);
    assert.equal(r400.status, 400);
    assert.match(((await r400.json()) as { error: string }).error, /^invalid event id: expected a UUID/);
    assert.equal((await fetch(`${daemon.cp}/events/${unknown}/other`)).status, 404);
    const cli404 = await svc('explain', unknown);
    assert.deepEqual([cli404.code, cli404.stderr], [1, `svc explain: no audit row concerns event ${unknown}\n`]);
    const cli400 = await svc('explain', 'not-an-id');
    assert.deepEqual([cli400.code, cli400.stderr], [2, 'svc explain: "not-an-id" is not an event id (a UUID as svc events shows, or its first or last characters)\n']);
  });

  it('checkpoints reach checkpoints.jsonl, the chain, GET /audit/checkpoints and the SIEM receiver, and openssl verifies them', async () => {
    const signed = (): Checkpoint[] => (existsSync(file('checkpoints.jsonl')) ? readFileSync(file('checkpoints.jsonl'), 'utf8') : '')
      .split('\n').filter(Boolean).map((l) => JSON.parse(l) as Checkpoint);
    // The head is looked at once a second and an idle chain is not signed again, so a burst of rows
    // makes one checkpoint, not one per everyRows. Two rounds: an alert (four rows, more than
    // everyRows), then a checkpoint that covers its accepted row.
    const before = signed().length;
    for (let round = 0; round < 2; round++) {
      const res = await postAlert(daemon.url, daemon.secret, daemon.fixture, `checkpoint-${round}`);
      assert.equal(res.status, 202);
      const accepted = await waitFor('the accepted row', () => queryStore<{ seq: number }>(daemon.home,
        "SELECT seq FROM audit WHERE kind = 'event.accepted' AND data LIKE ?", `%${String(res.json?.eventId)}%`)[0]);
      await waitFor(`a checkpoint covering seq ${accepted.seq}`, () => signed().find((cp) => cp.seq >= accepted.seq), 30_000);
    }
    const lines = signed();
    assert.ok(lines.length >= before + 2, `${lines.length} checkpoints, ${before} before the rounds`);
    const chain = new Map(auditRows(daemon.home).map((r) => [r.seq, r]));
    for (const cp of lines) assert.equal(chain.get(cp.seq)?.hash, cp.hash, `checkpoint of seq ${cp.seq} names its hash`);
    const atSiem = await waitFor('a checkpoint at the SIEM', () => siem.exchanges.flatMap((e) =>
      (JSON.parse(e.body) as { rows: Array<{ kind: string; data: Checkpoint }> }).rows).find((r) => r.kind === 'audit.checkpoint'), 30_000);
    assert.deepEqual(atSiem.data, lines.find((l) => l.seq === atSiem.data.seq));

    const listed = (await (await fetch(`${daemon.cp}/audit/checkpoints?limit=1`)).json()) as { items: Array<Checkpoint & { auditSeq: number }>; nextCursor: string | null };
    assert.deepEqual({ ...listed.items[0], auditSeq: undefined }, { ...lines[0], auditSeq: undefined });
    assert.equal(chain.get(listed.items[0]!.auditSeq)?.kind, 'audit.checkpoint');
    assert.equal(typeof listed.nextCursor, 'string');
    assert.equal((await fetch(`${daemon.cp}/audit/checkpoints?kind=x`)).status, 400);

    // docs/audit.md, "by hand": the signed bytes with jq, the signature decoded, openssl verifies.
    writeFileSync(file('pub.pem'), pem(keys.publicKey, 'spki'));
    const byHand = (line: string, key: string): string => execFileSync('bash', ['-c', [
      'set -euo pipefail',
      `printf '%s' "$LINE" | jq -jcS '{hash, seq, ts}' > msg`,
      `printf '%s' "$LINE" | jq -r .signature | base64 -d > sig`,
      `openssl pkeyutl -verify -pubin -inkey ${key} -rawin -in msg -sigfile sig`,
    ].join('\n')], { cwd: daemon.home, env: { ...process.env, LINE: line }, encoding: 'utf8' });
    assert.match(byHand(JSON.stringify(lines[0]), 'pub.pem'), /Signature Verified Successfully/);
    writeFileSync(file('other.pem'), pem(other.publicKey, 'spki'));
    assert.throws(() => byHand(JSON.stringify(lines[0]), 'other.pem'), (err: { stdout?: string }) => /Signature Verification Failure/.test(err.stdout ?? ''));
  });

  it('a tampered row: its event\'s story is not verified, and says which row', async () => {
    // Tampered as an attacker would, while the daemon is stopped (sqlite3 on a running daemon's WAL
    // file cuts it off from the daemon's shared memory); then the daemon runs again.
    const down = await svc('down');
    assert.equal(down.code, 0, down.stderr);
    const row = queryStore<{ seq: number }>(daemon.home, "SELECT seq FROM audit WHERE kind = 'triage.decision' AND data LIKE ?", `%${events.delivered}%`)[0]!;
    const sql = (statement: string): string => execFileSync('sqlite3', ['-cmd', '.timeout 10000', file('svc.db'), statement], { encoding: 'utf8' });
    const original = sql(`SELECT data FROM audit WHERE seq = ${row.seq}`).trim();
    sql(`UPDATE audit SET data = replace(data, '"P1"', '"P3"') WHERE seq = ${row.seq}`);
    assert.notEqual(sql(`SELECT data FROM audit WHERE seq = ${row.seq}`).trim(), original);
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
    const r = await svc('explain', events.delivered, '--json');
    assert.equal(r.code, 1, r.stdout);
    const s = JSON.parse(r.stdout) as StoryAnswer;
    assert.equal(s.verified, false);
    assert.deepEqual(s.verification.problems, [{ seq: row.seq, problem: 'hash-mismatch' }]);
    const human = await svc('explain', events.delivered);
    assert.equal(human.code, 1);
    assert.match(human.stdout, new RegExp(`\\nNOT verified: seq ${row.seq} hash-mismatch, chain broken at seq ${row.seq} \\(hash-mismatch\\)\\n$`));
    // Stopped and put back: the rest of the file runs on an intact chain of a stopped daemon.
    assert.equal((await svc('down')).code, 0);
    stopped = true;
    sql(`UPDATE audit SET data = replace(data, '"P3"', '"P1"') WHERE seq = ${row.seq}`);
    assert.equal(sql(`SELECT data FROM audit WHERE seq = ${row.seq}`).trim(), original);
  });

  it('a deleted tail: invisible to the chain, named by the checkpoints; a re-hashed tail too', async () => {
    writeFileSync(file('pub.pem'), pem(keys.publicKey, 'spki'));
    const verify = (db: string, ...extra: string[]) => svc('audit', '--verify', '--db', db, '--checkpoints', file('checkpoints.jsonl'),
      '--public-key', file('pub.pem'), ...extra);

    const intact = await verify(file('svc.db'));
    assert.equal(intact.code, 0, intact.stdout + intact.stderr);
    assert.match(intact.stdout, /checkpoints ok: \d+ checked with key [0-9a-f]{16}, newest at seq \d+/);
    // The clean stop signed the head: the stop record is covered.
    const rows = auditRows(daemon.home);
    const stop = rows.filter((r) => r.kind === 'runtime.stopped').pop()!;
    const lastCp = JSON.parse(readFileSync(file('checkpoints.jsonl'), 'utf8').trim().split('\n').pop()!) as Checkpoint;
    assert.equal(lastCp.seq, stop.seq);

    // An auditor's attack: the last five rows deleted from a copy of the stopped daemon's store.
    const cut = file('cut.db');
    execFileSync('sqlite3', [file('svc.db'), `.backup ${cut}`]);
    const head = rows[rows.length - 1]!.seq;
    execFileSync('sqlite3', [cut, `DELETE FROM audit WHERE seq > ${head - 5}`]);
    const alone = await svc('audit', '--verify', '--db', cut);
    assert.equal(alone.code, 0, 'the chain alone cannot see a deleted tail');
    assert.match(alone.stdout, new RegExp(`chain ok: ${head - 5} rows checked, head seq ${head - 5} `));
    const caught = await verify(cut);
    assert.equal(caught.code, 1);
    // The first checkpoint past the cut is named.
    const firstPast = readFileSync(file('checkpoints.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Checkpoint)
      .findIndex((c) => c.seq > head - 5);
    const named = JSON.parse(readFileSync(file('checkpoints.jsonl'), 'utf8').trim().split('\n')[firstPast]!) as Checkpoint;
    assert.match(caught.stdout, new RegExp(`checkpoints FAILED at seq ${named.seq}: .*checkpoints\\.jsonl line ${firstPast + 1}: the checkpoint signed at `
      + `${named.ts} covers seq ${named.seq}, but the chain ends at seq ${head - 5}: rows after seq ${head - 5} were deleted\n`));

    // A cleverer one: the tail rewritten and every hash after it recomputed, so the chain verifies.
    const rewritten = file('rewritten.db');
    execFileSync('sqlite3', [file('svc.db'), `.backup ${rewritten}`]);
    const db = new Database(rewritten);
    try {
      const tail = db.prepare('SELECT seq, ts, kind, actor, agent_id AS agentId, data AS dataText, prev_hash AS prevHash, hash FROM audit WHERE seq >= ? ORDER BY seq')
        .all(head - 3) as Array<{ seq: number; ts: string; kind: string; actor: string; agentId: string | null; dataText: string; prevHash: string;
          hash: string }>;
      let prev = tail[0]!.prevHash;
      for (const row of tail) {
        const next = { ...row, prevHash: prev, dataText: row.seq === head - 3 ? '{"rewritten":true}' : row.dataText };
        next.hash = sha256Hex(`${next.prevHash}\n${storedRowText(next)}`);
        db.prepare('UPDATE audit SET data = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(next.dataText, next.prevHash, next.hash, row.seq);
        prev = next.hash;
      }
    } finally {
      db.close();
    }
    assert.equal((await svc('audit', '--verify', '--db', rewritten)).code, 0, 'the re-hashed chain verifies on its own');
    const rehashed = await verify(rewritten);
    assert.equal(rehashed.code, 1);
    assert.match(rehashed.stdout, new RegExp(`checkpoints FAILED at seq \\d+: .* has hash [0-9a-f]{64} in the chain, but the checkpoint signed at .* says [0-9a-f]{64}: the chain was rewritten`));
  });

  it('a forged, a re-signed and a foreign checkpoint are refused, naming the line; malformed lines too', async () => {
    const text = readFileSync(file('checkpoints.jsonl'), 'utf8');
    const lines = text.trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as Checkpoint;
    const check = async (content: string, key = file('pub.pem')) => {
      writeFileSync(file('forged.jsonl'), content);
      return svc('audit', '--verify', '--db', file('svc.db'), '--checkpoints', file('forged.jsonl'), '--public-key', key);
    };
    const n = lines.length;
    // Forged: the claim changed, the signature kept.
    const forged = { ...last, seq: last.seq - 1, hash: auditRows(daemon.home).find((r) => r.seq === last.seq - 1)!.hash };
    const f = await check([...lines.slice(0, -1), JSON.stringify(forged)].join('\n') + '\n');
    assert.equal(f.code, 1);
    assert.match(f.stdout, new RegExp(`checkpoints FAILED at seq ${last.seq - 1}: .*forged\\.jsonl line ${n} \\(seq ${last.seq - 1}\\): the signature does not verify with the given public key`));
    // Re-signed with another key (keyId and all).
    const resigned = signCheckpoint({ seq: forged.seq, hash: forged.hash, ts: forged.ts }, other.privateKey);
    const rs = await check([...lines.slice(0, -1), JSON.stringify(resigned)].join('\n') + '\n');
    assert.equal(rs.code, 1);
    assert.match(rs.stdout, new RegExp(`line ${n} \\(seq ${forged.seq}\\): the signature does not verify`));
    // Every checkpoint genuine, but checked with another key: refused from line 1.
    writeFileSync(file('other.pem'), pem(other.publicKey, 'spki'));
    const foreign = await check(text, file('other.pem'));
    assert.equal(foreign.code, 1);
    assert.match(foreign.stdout, /line 1 \(seq \d+\): the signature does not verify with the given public key/);
    // Malformed in the middle: refused naming the line; a torn last line is tolerated.
    const broken = await check([lines[0], '{"seq":', ...lines.slice(1)].join('\n') + '\n');
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /forged\.jsonl line 2: not JSON; refused/);
    const torn = await check(`${text}{"seq":12,"ha`);
    assert.equal(torn.code, 0, torn.stdout);
    assert.match(torn.stdout, /\(a torn last line was skipped\)/);
  });

  it('a daemon started on a chain that lost its tail keeps paging, signs nothing over it, and keeps saying so', async () => {
    // cut.db is the stopped store with its last five rows deleted (above); checkpoints.jsonl still names them.
    const signedBefore = readFileSync(file('checkpoints.jsonl'), 'utf8');
    const newest = JSON.parse(signedBefore.trim().split('\n').pop()!) as Checkpoint;
    for (const side of ['-wal', '-shm']) rmSync(file(`svc.db${side}`), { force: true });
    copyFileSync(file('cut.db'), file('svc.db'));
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
    stopped = false;
    interface Status { checkpoints: { alarm: { source: string; kind: string; seq: number; headSeq: number; since: string; message: string } | null } | null }
    const status = async (): Promise<Status> => (await fetch(`${daemon.cp}/status`)).json() as Promise<Status>;
    const alarm = (await status()).checkpoints?.alarm;
    assert.ok(alarm, 'the alarm is up from the start');
    assert.equal(alarm.source, 'file');
    assert.equal(alarm.seq, newest.seq);
    assert.ok(['missing-row', 'hash-differs'].includes(alarm.kind), alarm.kind);
    assert.match(await (await fetch(`${daemon.cp}/metrics`)).text(), /^svc_audit_checkpoint_contradicted 1$/m);
    assert.match(readFileSync(file('up.log'), 'utf8'), /audit\.checkpoint\.contradicted/);

    // The pager is not switched off: an alert is triaged and delivered.
    const res = await postAlert(daemon.url, daemon.secret, daemon.fixture, 'after-the-cut');
    assert.equal(res.status, 202);
    const eventId = String(res.json?.eventId);
    const delivered = await waitFor('delivered', () => queryStore<{ seq: number }>(daemon.home,
      "SELECT seq FROM audit WHERE kind = 'message.delivered' AND data LIKE ?", `%${eventId}%`)[0]);
    // The checkpointer looked again after those rows (everySeconds 1: a checkpoint was due) and still refused.
    await waitFor('a look after the alert', async () => ((await status()).checkpoints?.alarm?.headSeq ?? 0) >= delivered.seq, 30_000);
    assert.equal(readFileSync(file('checkpoints.jsonl'), 'utf8'), signedBefore, 'nothing signed over the contradicted chain');
    const recorded = await waitFor('the contradiction at the SIEM', () => siem.exchanges.flatMap((e) =>
      (JSON.parse(e.body) as { rows: Array<{ kind: string; data: Record<string, unknown> }> }).rows).find((r) => r.kind === 'audit.checkpoint.contradicted'), 30_000);
    assert.equal(recorded.data.seq, newest.seq);

    // svc audit --verify keeps reporting it: the chain verifies on its own, the checkpoint does not hold.
    const verify = await svc('audit', '--verify');
    assert.equal(verify.code, 1, verify.stdout);
    assert.match(verify.stdout, new RegExp(`^chain ok: \\d+ rows checked, head seq \\d+ [0-9a-f]{64}; checkpoint CONTRADICTED: ${file('checkpoints.jsonl')}: `
      + `(the checkpoint signed at ${newest.ts} covers seq ${newest.seq}, but the chain ends at seq \\d+|seq ${newest.seq} has hash [0-9a-f]{64} in the chain)`));
    const json = JSON.parse((await svc('audit', '--verify', '--json')).stdout) as { verify: { ok: boolean; checkpoints: { ok: boolean } } };
    assert.deepEqual([json.verify.ok, json.verify.checkpoints.ok], [true, false]);

    // A clean stop signs the head, but not over this chain.
    assert.equal((await svc('down')).code, 0);
    stopped = true;
    assert.equal(readFileSync(file('checkpoints.jsonl'), 'utf8'), signedBefore);
  });
});

