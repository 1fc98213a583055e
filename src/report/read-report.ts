/**
 * Reads a report (contract §23): the facts of the window's pages, each agent's loaded oncall.yaml and
 * channel types and its stored overrides, put through the one aggregation. GET /report and the
 * console's /ui/reports both call this, so `svc report --json` and the console show the same numbers.
 * The facts come from the daemon's cache (report-cache.ts) when the window is one it keeps, else from
 * the store's rows read and folded for this report alone: the same fold either way.
 */
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { Store } from '../store/store.js';
import { aggregateReport } from './aggregate-report.js';
import type { PageFacts } from './page-facts.js';
import { pageFacts } from './page-facts.js';
import type { Report } from './report.js';
import type { ReportFacts } from './report-cache.js';
import type { ReportQuery } from './report-query.js';

export interface ReportSources {
  store: Pick<Store, 'oncall'>;
  /** Every agent's loaded oncall.yaml (agents without one are absent). */
  configs: () => ReadonlyArray<{ agentId: string; config: OncallConfig }>;
  /** The agent's channels, id → `type` (channels.yaml as loaded). */
  channelTypes: (agentId: string) => ReadonlyMap<string, string>;
  /** The daemon's kept facts; without it every report reads its rows. */
  facts?: ReportFacts;
}

async function windowFacts(sources: ReportSources, query: ReportQuery): Promise<Iterable<PageFacts>> {
  const window = { sinceMs: query.sinceMs, untilMs: query.untilMs, agent: query.agent };
  const kept = await sources.facts?.windowFacts(window);
  return kept ?? pageFacts(await sources.store.oncall.reportRows(window)).values();
}

export async function readReport(sources: ReportSources, query: ReportQuery): Promise<Report> {
  const agents = sources.configs().filter((a) => query.agent === null || a.agentId === query.agent);
  const [facts, overrides] = await Promise.all([
    windowFacts(sources, query),
    Promise.all(agents.map((a) => sources.store.oncall.listOverrides(a.agentId, query.sinceMs))),
  ]);
  return aggregateReport({ query, facts, ...(sources.facts === undefined ? {} : { memo: sources.facts.memo }),
    agents: agents.map((a, i) => ({ ...a, channelTypes: sources.channelTypes(a.agentId), overrides: overrides[i] ?? [] })) });
}
