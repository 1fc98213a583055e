/**
 * Migration 13 (contract §23): what a report reads, without reading a row's JSON. `audit_report` holds,
 * for every audit row of the page kinds whose data is JSON, that row's report line
 * (../report-rows.ts `reportLineSql`) in seq order: a report walks it and never parses `data` (at
 * 100,000 pages the scan went from ≈21 s to ≈1.3 s on a loaded host). `pages_report` covers the
 * window's pages without their bodies. Rows whose data is not JSON are in neither (a report leaves
 * them out; `svc audit --verify` finds them).
 */
import { REPORT_KINDS_SQL, reportLineSql } from '../report-rows.js';

/** The rows `audit_report` holds: the query that reads it says the same, so SQLite may use it. */
export const REPORT_ROWS_WHERE = `${REPORT_KINDS_SQL} AND json_valid(data)`;

export const REPORT_MIGRATION = `
  CREATE INDEX audit_report ON audit (seq, ${reportLineSql('sqlite')}) WHERE ${REPORT_ROWS_WHERE};
  CREATE INDEX pages_report ON pages (ts_ms, agent_id, policy_id, id);
`;
