/**
 * Who an open page is paging now, and who comes next and when (contract §24.8: the console shows it on
 * every open page). Read from the page's own policy snapshot (the one it opened under, §17.3) and the
 * schedules as they stand: a `schedule:` target is whoever is on call in it at the moment — now for
 * this step, at the next escalation for the next one. Pure: the caller passes the file, the usable
 * overrides and the time.
 */
import type { OncallConfig, Override, Target } from './oncall-config.js';
import type { PageRecord } from './page.js';
import type { PagedNow } from './page-message-model.js';
import { onCallAt } from './schedule.js';

function names(config: OncallConfig | undefined, targets: readonly Target[], atMs: number, overrides: readonly Override[]): string[] {
  const out: string[] = [];
  for (const t of targets) {
    if (t.kind === 'person') out.push(t.id);
    else if (t.kind === 'channel') out.push(`channel ${t.id}`);
    else {
      const schedule = config?.schedules.find((s) => s.id === t.id);
      const person = schedule === undefined ? null : onCallAt(schedule, overrides, atMs).person;
      out.push(person ?? `nobody on call in ${t.id}`);
    }
  }
  return [...new Set(out)];
}

/** Who targets name at an instant, in words (see `PagedNow.now`). */
export type NamesAt = (targets: readonly Target[], atMs: number) => string[];

type PageAt = Pick<PageRecord, 'state' | 'step' | 'loop' | 'policy' | 'nextEscalationAtMs' | 'exhausted'>;

/** Null for a resolved page: nobody is paged. Schedules are read from the file as it stands. */
export function pagedNow(page: PageAt, config: OncallConfig | undefined, overrides: readonly Override[], nowMs: number): PagedNow | null {
  return pagedNowBy(page, (targets, atMs) => names(config, targets, atMs, overrides), nowMs);
}

/**
 * The same with who targets name given by the caller: the page planner asks the resolver it sends
 * with (§17.2), so a page message names the people that round reaches and the ones next in line.
 */
export function pagedNowBy(page: PageAt, namesAt: NamesAt, nowMs: number): PagedNow | null {
  if (page.state === 'resolved') return null;
  const { steps } = page.policy;
  const current = steps[page.step - 1];
  const now = current === undefined ? [] : [...new Set(namesAt(current.notify, nowMs))];
  let next: PagedNow['next'] = null;
  if (page.state === 'triggered' && !page.exhausted && page.nextEscalationAtMs !== null) {
    // After the last step the policy loops to the first while passes remain (§17.3).
    const last = page.step >= steps.length;
    const nextStep = last ? (page.loop < page.policy.repeat ? 1 : null) : page.step + 1;
    const target = nextStep === null ? undefined : steps[nextStep - 1];
    if (nextStep !== null && target !== undefined) {
      next = { step: nextStep, who: [...new Set(namesAt(target.notify, page.nextEscalationAtMs))], atMs: page.nextEscalationAtMs };
    }
  }
  return { step: page.step, steps: steps.length, now, next };
}
