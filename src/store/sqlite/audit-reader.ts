/**
 * Read-only access to the stored audit chain on its own connection, for whole-chain verification in
 * worker threads (contract §5, `/audit?verify=1`).
 */
import type { StoredAuditRow } from '../../audit/audit-row.js';
import { openReadOnly } from './schema.js';

/** Aliased to the StoredAuditRow names, so better-sqlite3 builds the objects with no JS mapping. */
export const STORED_AUDIT_COLS = 'seq, ts, kind, actor, agent_id AS agentId, data AS dataText, prev_hash AS prevHash, hash';

/**
 * An audit row reduced to what verification needs: `hashInput` is `prevHash + "\n" +` the RFC 8785
 * text of the row, built by SQLite from the stored columns.
 */
export type AuditHashRow = [seq: number, prevHash: string, hash: string, hashInput: string];

/** Read-only access to the stored audit chain, for verification away from the store's connection. */
export interface AuditReader {
  /** The chain's last row, or null when it is empty. */
  head(): { seq: number; hash: string } | null;
  /** Rows with afterSeq < seq <= throughSeq in seq order, at most `limit`. */
  hashRows(afterSeq: number, throughSeq: number, limit: number): AuditHashRow[];
  /** One row as stored (data as text), for the reference check of a row whose fast hash differs. */
  row(seq: number): StoredAuditRow | undefined;
  close(): void;
}

/** A TEXT column as a JSON string; any other storage class (a tampered BLOB) as text that can never hash right. */
const jsonText = (col: string): string => `(CASE typeof(${col}) WHEN 'text' THEN json_quote(${col}) ELSE '!' END)`;

/**
 * The canonical row text (what `storedRowText` builds in JS) built in SQL, so a row crosses into JS
 * as 4 values instead of 8 and JS builds no strings: ~1.5-2x the rows/s of reading the columns
 * and concatenating in JS. Keys in RFC 8785 order; json_quote escapes like JSON.stringify for the
 * text svc writes (`"`, `\`, \b \f \n \r \t, other controls as \u00xx). Wherever the SQL text still
 * differs, the verifier re-checks that row with the JS reference, so this can never change a
 * verdict, only its speed.
 */
const AUDIT_HASH_INPUT_SQL = `(CASE typeof(prev_hash) WHEN 'text' THEN prev_hash ELSE '!' END) || char(10)
  || '{"actor":' || ${jsonText('actor')}
  || ',"agentId":' || (CASE WHEN agent_id IS NULL THEN 'null' ELSE ${jsonText('agent_id')} END)
  || ',"data":' || CAST(data AS TEXT) || ',"kind":' || ${jsonText('kind')} || ',"prevHash":' || ${jsonText('prev_hash')}
  || ',"seq":' || seq || ',"ts":' || ${jsonText('ts')} || '}'`;

/**
 * Opens its own read-only connection to the store file at `path` (WAL: reads never block the
 * writer and see committed rows only). Used by the chain verifier, in worker threads.
 */
export function openAuditReader(path: string): AuditReader {
  const db = openReadOnly(path);
  try {
    const head = db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1');
    const hashRows = db.prepare<[number, number, number], AuditHashRow>(
      `SELECT seq, prev_hash, hash, ${AUDIT_HASH_INPUT_SQL} FROM audit WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    ).raw(true);
    const row = db.prepare<[number], StoredAuditRow>(`SELECT ${STORED_AUDIT_COLS} FROM audit WHERE seq = ?`);
    return {
      head: () => head.get() ?? null,
      hashRows: (afterSeq, throughSeq, limit) => hashRows.all(afterSeq, throughSeq, limit),
      row: (seq) => row.get(seq),
      close: () => { db.close(); },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
