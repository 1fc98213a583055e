/**
 * What a new configuration would strand (issue 33.4): the store keeps open pages, each with the policy
 * it opened under (contract §17.3), and overrides, each naming a person — while the files say who and
 * what exists. A reload that renames or removes a person or schedule (oncall.yaml) or a channel
 * (channels.yaml) the store still names would leave an open page's step reaching nobody, or an override
 * putting on call someone no page can reach. `svc reload` refuses such a change, naming each page and
 * override (daemon/config-reload.ts); pure.
 *
 * (Were the daemon restarted with such files instead, nothing is silent either: a target the files
 * lack is `page.nobody-on-call` with a warning, and such an override never wins, targets.ts.)
 */
import type { OncallConfig, Override, Target } from './oncall-config.js';
import type { PageRecord } from './page.js';
import { formatTarget } from './targets.js';

/** What the new configuration of one agent keeps: its people and schedules (oncall.yaml), its channel ids (channels.yaml). */
export interface NextAgent extends Pick<OncallConfig, 'people' | 'schedules'> {
  channels: readonly string[];
}

/** One page or override of an agent that the new configuration would strand, as a line a person reads. */
export function strandedState(agentId: string, next: NextAgent, openPages: readonly PageRecord[], liveOverrides: readonly Override[]): string[] {
  const people = new Set(next.people.map((p) => p.id));
  const schedules = new Set(next.schedules.map((s) => s.id));
  const channels = new Set(next.channels);
  const missing = (t: Target): boolean => (t.kind === 'person' && !people.has(t.id)) || (t.kind === 'schedule' && !schedules.has(t.id));
  const lines: string[] = [];
  for (const page of openPages) {
    if (page.agentId !== agentId || page.state === 'resolved') continue;
    const targets = [...page.policy.steps.flatMap((s) => s.notify), ...page.policy.onExhausted];
    const gone = [...new Set(targets.filter(missing).map(formatTarget))];
    const goneChannels = [...new Set(targets.filter((t) => t.kind === 'channel' && !channels.has(t.id)).map(formatTarget))];
    const clauses = [...(gone.length > 0 ? [`${gone.join(', ')}, which the new oncall.yaml does not have`] : []),
      ...(goneChannels.length > 0 ? [`${goneChannels.join(', ')}, which the new channels.yaml does not have`] : [])];
    if (clauses.length > 0) {
      lines.push(`agent ${agentId}: open page ${page.id} ("${page.title.slice(0, 60)}", policy ${page.policy.id}) notifies ${clauses.join(', and ')}`);
    }
  }
  for (const o of liveOverrides) {
    if (o.agentId !== agentId || people.has(o.personId)) continue;
    lines.push(`agent ${agentId}: override ${o.id} puts ${o.personId} on call for ${o.scheduleId} until ${new Date(o.toMs).toISOString()}, `
      + `and the new oncall.yaml has no person ${o.personId}`);
  }
  return lines;
}
