/**
 * The imported OncallConfig as the oncall.yaml a person would write (contract §17, §21): the keys and
 * duration forms of the file (`every: 1w`, `after: 5m`, `from: "09:00"`), defaults left out, short
 * lists and maps on one line. Loading the text with the real loader gives back the same config
 * (write-oncall-yaml.test.ts holds it to that).
 */
import { Document } from 'yaml';
import type { Node } from 'yaml';
import { formatDuration } from '../core/duration.js';
import type { OncallConfig, Person, Policy, Rotation, Route, Schedule, Target, TimeWindow } from '../oncall/oncall-config.js';
import { clock } from './week-windows.js';

const target = (t: Target): string => `${t.kind}:${t.id}`;
const after = (ms: number): string => (ms === 0 ? '0m' : formatDuration(ms));
const ALL_DAYS = 7;

export function oncallYamlText(config: OncallConfig, header: string): string {
  const doc = new Document();
  const flow = (value: unknown): Node => {
    const node = doc.createNode(value) as Node & { flow?: boolean };
    node.flow = true;
    return node;
  };
  const window = (w: TimeWindow): Node => flow({ ...(w.days.length === ALL_DAYS ? {} : { days: w.days }), from: clock(w.fromMinute), to: clock(w.toMinute) });
  const rotation = (r: Rotation, schedule: Schedule): Record<string, unknown> => ({
    people: flow(r.people),
    every: formatDuration(r.everyMs),
    handoff: r.handoff,
    ...(r.only.length > 0 ? { only: r.only.map(window) } : {}),
    ...(r.timeZone !== schedule.timeZone ? { timeZone: r.timeZone } : {}),
  });
  const person = (p: Person): Record<string, unknown> => ({
    id: p.id,
    ...(p.name !== null ? { name: p.name } : {}),
    contacts: p.contacts,
    ...(p.timeZone !== null ? { timeZone: p.timeZone } : {}),
    ...(p.notify.length > 0 ? { notify: p.notify.map((rule) => flow({ after: after(rule.afterMs), via: rule.via })) } : {}),
    ...(p.statusUpdates !== null ? { statusUpdates: flow(p.statusUpdates) } : {}),
    ...(p.login !== null ? { login: p.login } : {}),
  });
  const schedule = (s: Schedule): Record<string, unknown> => ({
    id: s.id,
    timeZone: s.timeZone,
    rotations: s.rotations.map((r) => rotation(r, s)),
    ...(s.fallback !== null ? { fallback: s.fallback } : {}),
    ...(s.allowGaps ? { allowGaps: true } : {}),
  });
  const policy = (p: Policy): Record<string, unknown> => ({
    id: p.id,
    steps: p.steps.map((step) => flow({ notify: step.notify.map(target), after: formatDuration(step.afterMs) })),
    ...(p.repeat > 0 ? { repeat: p.repeat } : {}),
  });
  const route = (r: Route): Node => flow('policy' in r
    ? { match: { severity: r.match.severity }, policy: r.policy }
    : { match: { severity: r.match.severity }, notify: r.notify.map(target) });
  doc.contents = doc.createNode({
    people: config.people.map(person),
    ...(config.schedules.length > 0 ? { schedules: config.schedules.map(schedule) } : {}),
    ...(config.policies.length > 0 ? { policies: config.policies.map(policy) } : {}),
    routes: config.routes.map(route),
  });
  doc.commentBefore = header.split('\n').map((line) => ` ${line}`).join('\n');
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
