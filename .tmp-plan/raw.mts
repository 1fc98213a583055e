import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
for (const variant of ['plain', 'indexed', 'indexed+headread']) {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'raw-')), 'x.db'));
  db.pragma('journal_mode = WAL'); db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE audit (seq INTEGER PRIMARY KEY, ts TEXT, ts_ms INTEGER, kind TEXT, actor TEXT, agent_id TEXT, data TEXT, prev_hash TEXT, hash TEXT)');
  if (variant !== 'plain') db.exec('CREATE INDEX a1 ON audit(kind, seq); CREATE INDEX a2 ON audit(agent_id, seq); CREATE INDEX a3 ON audit(ts_ms)');
  const ins = db.prepare('INSERT INTO audit VALUES (?,?,?,?,?,?,?,?,?)');
  const head = db.prepare('SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1');
  const tx = db.transaction((i: number) => { if (variant.endsWith('headread')) head.get(); ins.run(i, '2024-01-01T00:00:00.000Z', Date.now(), 'event.accepted', 'source:x', 'agent', '{"a":1}', 'x'.repeat(64), 'y'.repeat(64)); });
  for (let i = 1; i <= 1000; i++) tx.immediate(i);
  const t = performance.now();
  for (let i = 1001; i <= 11000; i++) tx.immediate(i);
  console.log(variant, Math.round(10000 / ((performance.now() - t) / 1000)));
}
