/**
 * The store's side of the reload check of issue 33.4: reads the open pages and live overrides and
 * asks the pure oncall/stranded-state.ts what a new set of oncall.yaml and channels.yaml files would strand.
 */
import type { LoadedAgent } from '../config/schema.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { PageRecord } from '../oncall/page.js';
import { strandedState } from '../oncall/stranded-state.js';
import type { Store } from '../store/store.js';
import { isDamagedPage } from '../store/oncall-store.js';

/** Pages read per request; open pages are few (each is an incident someone is paged for). */
const PAGE_BATCH = 500;

async function openPages(store: Store): Promise<PageRecord[]> {
  const out: PageRecord[] = [];
  for (const state of ['triggered', 'acknowledged'] as const) {
    let cursor: string | null = null;
    do {
      const page = await store.oncall.listPages({ limit: PAGE_BATCH, cursor, order: 'asc', sinceMs: null, untilMs: null }, { state });
      // A page stored damaged was set aside (resolved): it strands nothing.
      out.push(...page.items.filter((p): p is PageRecord => !isDamagedPage(p)));
      cursor = page.nextCursor;
    } while (cursor !== null);
  }
  return out;
}

/** One line per open page or live override the new files would strand; empty when none. */
export async function strandedInStore(store: Store, next: { agents: readonly LoadedAgent[]; oncall: ReadonlyMap<string, OncallConfig> },
  nowMs: number): Promise<string[]> {
  const [pages, overrides] = await Promise.all([openPages(store), store.oncall.listOverrides(null, nowMs)]);
  return [...next.oncall].flatMap(([agentId, config]) => strandedState(agentId, { people: config.people, schedules: config.schedules,
    channels: next.agents.find((a) => a.agent.id === agentId)?.channels.map((c) => c.id) ?? [] }, pages, overrides));
}
