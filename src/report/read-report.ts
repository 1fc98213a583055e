/**
 * Reads a report (contract §23): the store's rows for the window, each agent's loaded oncall.yaml and
 * channel types and its stored overrides, put through the one aggregation. GET /report and the
 * console's /ui/reports both call this, so `svc report --json` and the console show the same numbers.
 */
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { Store } from '../store/store.js';
import { aggregateReport } from './aggregate-report.js';
import type { Report } from './report.js';
import type { ReportQuery } from './report-query.js';

export interface ReportSources {
  store: Pick<Store, 'oncall'>;
  /** Every agent's loaded oncall.yaml (agents without one are absent). */
  configs: () => ReadonlyArray<{ agentId: string; config: OncallConfig }>;
  /** The agent's channels, id → `type` (channels.yaml as loaded). */
  channelTypes: (agentId: string) => ReadonlyMap<string, string>;
}

export async function readReport(sources: ReportSources, query: ReportQuery): Promise<Report> {
  const agents = sources.configs().filter((a) => query.agent === null || a.agentId === query.agent);
  const [rows, overrides] = await Promise.all([
    sources.store.oncall.reportRows({ sinceMs: query.sinceMs, untilMs: query.untilMs, agent: query.agent }),
    Promise.all(agents.map((a) => sources.store.oncall.listOverrides(a.agentId, query.sinceMs))),
  ]);
  return aggregateReport({ query, rows,
    agents: agents.map((a, i) => ({ ...a, channelTypes: sources.channelTypes(a.agentId), overrides: overrides[i] ?? [] })) });
}
