/** The rows of the audit chain (contract §5), as appended, hashed and stored. */

/** Audit row (contract §5). `hash = SHA-256(prevHash + "\n" + JCS(row without hash))`. */
export interface AuditRow {
  seq: number;
  ts: string;
  kind: string;
  actor: string;
  agentId: string | null;
  data: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/**
 * Audit row as stored, for whole-chain verification: `dataText` is the stored JSON text of `data`
 * (its RFC 8785 form when written by svc), not parsed, so the verifier can hash it directly.
 */
export interface StoredAuditRow {
  seq: number;
  ts: string;
  kind: string;
  actor: string;
  agentId: string | null;
  dataText: string;
  prevHash: string;
  hash: string;
}

export interface NewAuditEntry {
  kind: string;
  actor: string;
  agentId: string | null;
  data: Record<string, unknown>;
}
