/**
 * `GET /report?since=&until=&agent=&by=` (contract §23): what the pager cost and who carried it, as
 * report/report.ts shapes it — the JSON `svc report` reads. Read-only, behind the Host check and
 * authentication like every view. A report reads every page of its window: one is computed at a time
 * (`reports.gate`, shared with the console's /ui/reports), the others wait their turn.
 */
import { errorText } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import type { Report } from '../../report/report.js';
import type { ReportQuery } from '../../report/report-query.js';
import type { ReportSources } from '../../report/read-report.js';
import { readReport } from '../../report/read-report.js';
import { sendError, sendJson } from '../http-json.js';
import type { ReadGate } from '../read-gate.js';
import { takeTurn } from '../read-gate.js';
import { parseReportParams } from '../report-params.js';
import type { RouteHandler } from '../route.js';
import type { Report as LogReport } from './view-route.js';

/** How reports are read: their sources, and the gate that lets one run at a time. */
export interface Reports {
  sources: ReportSources;
  gate: ReadGate;
}

/** A report read at its turn at the gate; null when the client left while it waited. */
export async function reportAtTurn(reports: Reports, query: ReportQuery, signal: AbortSignal): Promise<Report | null> {
  const leave = await takeTurn(reports.gate, signal);
  if (leave === null) return null;
  try {
    return await readReport(reports.sources, query);
  } finally {
    leave();
  }
}

export function createReportRoute(deps: { reports: Reports; clock: Clock; report: LogReport }): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const parsed = parseReportParams(url.searchParams, deps.clock.now());
    if (!parsed.ok) return sendError(req, res, 400, parsed.error);
    try {
      const report = await reportAtTurn(deps.reports, parsed.value, signal);
      if (report === null || signal.aborted || res.destroyed) return undefined;
      sendJson(req, res, 200, report);
    } catch (err) {
      deps.report(`control plane: GET /report failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
    }
    return undefined;
  };
}
