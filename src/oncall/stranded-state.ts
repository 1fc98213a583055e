/**
 * What a new oncall.yaml would strand (issue 33.4): the store keeps open pages, each with the policy
 * it opened under (contract §17.3), and overrides, each naming a person — while the file says who
 * exists. A reload that renames or removes a person or schedule the store still names would leave an
 * open page's step reaching nobody, or an override putting on call someone no page can reach. `svc
 * reload` refuses such a change, naming each page and override (daemon/config-reload.ts); pure.
 *
 * (Were the daemon restarted with such a file instead, nothing is silent either: a target the file
 * lacks is `page.nobody-on-call` with a warning, and such an override never wins, targets.ts.)
 */
import type { OncallConfig, Override, Target } from './oncall-config.js';
import type { PageRecord } from './page.js';
import { formatTarget } from './targets.js';

/** One page or override of an agent that the new file would strand, as a line a person reads. */
export function strandedState(agentId: string, next: Pick<OncallConfig, 'people' | 'schedules'>, openPages: readonly PageRecord[],
  liveOverrides: readonly Override[]): string[] {
  const people = new Set(next.people.map((p) => p.id));
  const schedules = new Set(next.schedules.map((s) => s.id));
  const missing = (t: Target): boolean => (t.kind === 'person' && !people.has(t.id)) || (t.kind === 'schedule' && !schedules.has(t.id));
  const lines: string[] = [];
  for (const page of openPages) {
    if (page.agentId !== agentId || page.state === 'resolved') continue;
    const targets = [...page.policy.steps.flatMap((s) => s.notify), ...page.policy.onExhausted];
    const gone = [...new Set(targets.filter(missing).map(formatTarget))];
    if (gone.length > 0) {
      lines.push(`agent ${agentId}: open page ${page.id} ("${page.title.slice(0, 60)}", policy ${page.policy.id}) notifies ${gone.join(', ')}, `
        + 'which the new oncall.yaml does not have');
    }
  }
  for (const o of liveOverrides) {
    if (o.agentId !== agentId || people.has(o.personId)) continue;
    lines.push(`agent ${agentId}: override ${o.id} puts ${o.personId} on call for ${o.scheduleId} until ${new Date(o.toMs).toISOString()}, `
      + `and the new oncall.yaml has no person ${o.personId}`);
  }
  return lines;
}
