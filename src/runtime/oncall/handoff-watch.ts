/**
 * The handoff timers (contract §17.6, `schedule.handoff`): each schedule's next handoff is a due time
 * in the store; the page loop looks about once a second, and a plan (oncall/handoff-plan.ts) applied
 * onto the due time it read tells the person whose shift started, once — across restarts, and on one
 * replica of several (the store's compare-and-set is the claim). The messages go through the page
 * notifier's outbox like every page notification.
 */
import type { OncallConfig } from '../../oncall/oncall-config.js';
import type { StoredHandoff } from '../../oncall/handoff-plan.js';
import { planHandoff } from '../../oncall/handoff-plan.js';
import type { Store } from '../../store/store.js';

/** Looks at every schedule's timer at `nowMs`; returns how many handoffs this call told. */
export async function watchHandoffs(store: Store, configs: ReadonlyMap<string, OncallConfig>, nowMs: number): Promise<number> {
  const stored = new Map((await store.oncall.listHandoffs()).map((h) => [`${h.agentId}\u0000${h.scheduleId}`, h.nextMs]));
  let told = 0;
  for (const [agentId, config] of configs) {
    if (config.schedules.length === 0) continue;
    const overrides = await store.oncall.listOverrides(agentId, nowMs);
    for (const schedule of config.schedules) {
      const key = `${agentId}\u0000${schedule.id}`;
      const timer: StoredHandoff = stored.has(key) ? stored.get(key) ?? null : undefined;
      const plan = planHandoff(config, agentId, schedule, overrides, timer, nowMs);
      if (plan !== null && (await store.oncall.applyHandoffPlan(plan, nowMs)) && plan.audit.length > 0) told += 1;
    }
  }
  return told;
}
