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

/**
 * A stored row with its data parsed, for consumers that ship rows on (SIEM export). Data that is not
 * a JSON object any more (a damaged row) is shipped as `{"corrupt": true}`; verification reports it.
 */
export function parseStoredAuditRow(row: StoredAuditRow): AuditRow {
  let data: Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(row.dataText);
    data = typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : { corrupt: true };
  } catch {
    data = { corrupt: true };
  }
  const { dataText: _dataText, ...rest } = row;
  return { ...rest, data };
}
