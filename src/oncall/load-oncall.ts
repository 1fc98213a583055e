/**
 * Loads an agent's `oncall.yaml` (contract §17, §17.1): the file as the other configuration files are
 * read (bounded, `${env|file|secret:…}` references, strict keys, `<file>:<line>:<col>: <key.path>:`
 * messages), then what only shows across keys and files: ids that must exist (people, schedules,
 * policies, the agent's channels and sources), time zones, handoff dates, and the coverage check —
 * every instant of the next COVERAGE_DAYS days has someone on call in every schedule unless it sets
 * `allowGaps: true` (overrides live in the store and are not counted). No file → null: the agent pages
 * the channel's own recipient as before (§9.4).
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { contactProblem } from '../config/contact-forms.js';
import { ONCALL_FILE, hasOwnRecipient, recipientKeysText } from '../config/own-recipient.js';
import type { ChannelConfig, LoadedAgent } from '../config/schema.js';
import { answerSourcesOf } from '../config/schema.js';
import { loadYamlFile } from '../config/yaml-file.js';
import type { KeyPath, YamlFile } from '../config/yaml-file.js';
import { formatDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import type { OncallConfig, Person, Schedule, Target } from './oncall-config.js';
import { oncallFileSchema } from './oncall-schema.js';
import { scheduleShifts } from './schedule.js';
import { DAY_MS, formatNaive, isKnownZone, parseLocalDateTime, zoneTime } from './zone-time.js';

/** How far ahead the coverage check looks (contract §17.1). */
export const COVERAGE_DAYS = 14;

export interface OncallLoadContext {
  env: NodeJS.ProcessEnv;
  home: string;
  /** The instant the coverage check starts from (the clock's now). */
  nowMs: number;
}

/** What of the agent the file may refer to: its directory, channels (their configuration, when known, checks contacts' shapes) and sources. */
export interface OncallAgent {
  dir: string;
  channels: ReadonlyArray<{ id: string } | ChannelConfig>;
  sources: ReadonlyArray<{ id: string }>;
}

/** Loads `<dir>/oncall.yaml`; null when the directory has none. Throws ConfigError listing every problem. */
export function loadOncall(agent: OncallAgent, ctx: OncallLoadContext): OncallConfig | null {
  const path = join(agent.dir, ONCALL_FILE);
  try {
    lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const file = loadYamlFile(path, oncallFileSchema, { env: ctx.env, home: ctx.home });
  const problems = referenceProblems(file, agent);
  if (problems.length === 0) problems.push(...coverageProblems(file, ctx.nowMs));
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return file.value;
}

/** The on-call configuration of every agent that has one, by agent id; throws ConfigError listing every problem of every agent. */
export function loadOncallForAgents(agents: readonly LoadedAgent[], ctx: OncallLoadContext): Map<string, OncallConfig> {
  const found = new Map<string, OncallConfig>();
  const problems: string[] = [];
  for (const agent of agents) {
    try {
      const config = loadOncall(agent, ctx);
      if (config) found.set(agent.agent.id, config);
      else problems.push(...pageSourceProblems(agent));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return found;
}

/**
 * An ack source (§18.6), a Slack source (§18.2) and a Twilio source (§21.4) act on pages, and only an agent
 * with an oncall.yaml has pages: without one such a source would listen for nothing, so it is refused
 * rather than left silent.
 */
function pageSourceProblems(agent: LoadedAgent): string[] {
  return answerSourcesOf(agent).flatMap((source) => [
    `${join(agent.dir, 'event-sources.yaml')}: source ${source.id} (type: ${source.type}) answers pages, but agent ${agent.agent.id} has no `
      + `${ONCALL_FILE} (${join(agent.dir, ONCALL_FILE)}): add one, or remove the source`]);
}

function duplicateIds(file: YamlFile<OncallConfig>, list: 'people' | 'schedules' | 'policies' | 'heartbeats', noun: string): string[] {
  const first = new Map<string, number>();
  const problems: string[] = [];
  file.value[list].forEach((item, i) => {
    const earlier = first.get(item.id);
    if (earlier === undefined) first.set(item.id, i);
    else problems.push(file.problem([list, i, 'id'], `duplicate ${noun} id ${file.quote([list, i, 'id'], item.id)} (first at ${file.where([list, earlier, 'id'])})`));
  });
  return problems;
}

function referenceProblems(file: YamlFile<OncallConfig>, agent: OncallAgent): string[] {
  const config = file.value;
  const people = new Set(config.people.map((p) => p.id));
  const schedules = new Set(config.schedules.map((s) => s.id));
  const policies = new Set(config.policies.map((p) => p.id));
  const channels = new Set(agent.channels.map((c) => c.id));
  const configOf = (id: string): ChannelConfig | undefined => {
    const c = agent.channels.find((x) => x.id === id);
    return c !== undefined && 'type' in c ? c : undefined;
  };
  const sources = new Set(agent.sources.map((s) => s.id));
  const channelList = [...channels].join(', ');
  const problems = [
    ...duplicateIds(file, 'people', 'person'),
    ...duplicateIds(file, 'schedules', 'schedule'),
    ...duplicateIds(file, 'policies', 'policy'),
    ...duplicateIds(file, 'heartbeats', 'heartbeat'),
  ];
  const unknown = (path: KeyPath, noun: string, value: string, known: string): void => {
    problems.push(file.problem(path, `unknown ${noun} ${file.quote(path, value)}${known}`));
  };
  const checkTargets = (path: KeyPath, targets: readonly Target[]): void => {
    targets.forEach((t, i) => {
      const at = [...path, i];
      if (t.kind === 'person' && !people.has(t.id)) unknown(at, 'person', t.id, ' (not in people)');
      if (t.kind === 'schedule' && !schedules.has(t.id)) unknown(at, 'schedule', t.id, ' (not in schedules)');
      if (t.kind === 'channel' && !channels.has(t.id)) unknown(at, 'channel', t.id, ` (channels.yaml has ${channelList})`);
      const channel = t.kind === 'channel' ? configOf(t.id) : undefined;
      if (channel !== undefined && !hasOwnRecipient(channel)) {
        problems.push(file.problem(at, `channel:${t.id} sends to the channel's own recipient, and ${channel.type} channel ${t.id} has none: `
          + `set ${recipientKeysText(channel.type)} on it in channels.yaml, or notify people here`));
      }
    });
  };

  const logins = new Map<string, number>();
  config.people.forEach((person, i) => {
    for (const channelId of Object.keys(person.contacts)) {
      const path = ['people', i, 'contacts', channelId];
      if (!channels.has(channelId)) problems.push(file.problem(path, `a contact on channel "${channelId}", which the agent does not have (channels.yaml has ${channelList})`));
      const channel = configOf(channelId);
      const shape = channel === undefined ? null : contactProblem(channel, person.contacts[channelId] ?? '');
      if (shape !== null) problems.push(file.problem(path, shape));
    }
    problems.push(...personProblems(file, person, i));
    if (person.login !== null) {
      const earlier = logins.get(person.login.toLowerCase());
      if (earlier === undefined) logins.set(person.login.toLowerCase(), i);
      else problems.push(file.problem(['people', i, 'login'], `the same login as ${config.people[earlier]?.id ?? ''} (${file.where(['people', earlier, 'login'])}): a sign-in must map to one person`));
    }
  });
  config.schedules.forEach((schedule, i) => {
    if (!isKnownZone(schedule.timeZone)) {
      problems.push(file.problem(['schedules', i, 'timeZone'], `unknown time zone ${file.quote(['schedules', i, 'timeZone'], schedule.timeZone)} (an IANA name such as Europe/Berlin or America/New_York)`));
    }
    schedule.rotations.forEach((rotation, r) => {
      if (rotation.timeZone !== schedule.timeZone && !isKnownZone(rotation.timeZone)) {
        const path = ['schedules', i, 'rotations', r, 'timeZone'];
        problems.push(file.problem(path, `unknown time zone ${file.quote(path, rotation.timeZone)} (an IANA name such as Europe/Berlin or America/New_York)`));
      }
      rotation.people.forEach((p, j) => {
        if (!people.has(p)) unknown(['schedules', i, 'rotations', r, 'people', j], 'person', p, ' (not in people)');
      });
      if (parseLocalDateTime(rotation.handoff) === null) {
        problems.push(file.problem(['schedules', i, 'rotations', r, 'handoff'], 'not a real date and time'));
      }
    });
    if (schedule.fallback !== null && !people.has(schedule.fallback)) unknown(['schedules', i, 'fallback'], 'person', schedule.fallback, ' (not in people)');
  });
  config.policies.forEach((policy, i) => {
    policy.steps.forEach((step, s) => checkTargets(['policies', i, 'steps', s, 'notify'], step.notify));
    checkTargets(['policies', i, 'onExhausted'], policy.onExhausted);
  });
  config.routes.forEach((route, i) => {
    if ('policy' in route) {
      if (!policies.has(route.policy)) unknown(['routes', i, 'policy'], 'policy', route.policy, ' (not in policies)');
    } else {
      checkTargets(['routes', i, 'notify'], route.notify);
    }
  });
  config.heartbeats.forEach((heartbeat, i) => {
    if (!sources.has(heartbeat.source)) {
      unknown(['heartbeats', i, 'source'], 'source', heartbeat.source, ` (event-sources.yaml has ${[...sources].join(', ')})`);
    }
    if (!policies.has(heartbeat.policy)) unknown(['heartbeats', i, 'policy'], 'policy', heartbeat.policy, ' (not in policies)');
  });
  return problems;
}

/**
 * What one person's entry must hold together (§21): a known time zone; personal rules that name only the
 * person's own contacts, in order of `after` (each later than the one before: equal ones are one rule);
 * status updates on the person's own contacts.
 */
function personProblems(file: YamlFile<OncallConfig>, person: Person, i: number): string[] {
  const problems: string[] = [];
  const contacts = Object.keys(person.contacts);
  const known = contacts.join(', ');
  if (person.timeZone !== null && !isKnownZone(person.timeZone)) {
    const path = ['people', i, 'timeZone'];
    problems.push(file.problem(path, `unknown time zone ${file.quote(path, person.timeZone)} (an IANA name such as Europe/Berlin or America/New_York)`));
  }
  person.notify.forEach((rule, r) => {
    rule.via.forEach((channelId, v) => {
      const path = ['people', i, 'notify', r, 'via', v];
      if (!(channelId in person.contacts)) problems.push(file.problem(path, `${file.quote(path, channelId)} is not one of ${person.id}'s contacts (${known})`));
    });
    const before = person.notify[r - 1];
    if (before !== undefined && rule.afterMs <= before.afterMs) {
      problems.push(file.problem(['people', i, 'notify', r, 'after'], `must come later than the rule before it (${formatAfter(before.afterMs)}): rules are listed in the order they fire`));
    }
  });
  (person.statusUpdates ?? []).forEach((channelId, u) => {
    const path = ['people', i, 'statusUpdates', u];
    if (!(channelId in person.contacts)) problems.push(file.problem(path, `${file.quote(path, channelId)} is not one of ${person.id}'s contacts (${known})`));
  });
  return problems;
}

const formatAfter = (ms: number): string => (ms === 0 ? '0m' : formatDuration(ms));

/** `2026-11-28 18:00 Europe/Berlin (2026-11-28T17:00:00Z)`: an instant as the schedule's people and as UTC. */
export function describeInstant(schedule: Schedule, instantMs: number): string {
  const local = formatNaive(zoneTime(schedule.timeZone).toNaive(instantMs));
  return `${local} ${schedule.timeZone} (${new Date(instantMs).toISOString().replace('.000Z', 'Z')})`;
}

function coverageProblems(file: YamlFile<OncallConfig>, nowMs: number): string[] {
  const problems: string[] = [];
  file.value.schedules.forEach((schedule, i) => {
    if (schedule.allowGaps) return;
    const gap = scheduleShifts(schedule, [], nowMs, nowMs + COVERAGE_DAYS * DAY_MS).find((s) => s.person === null);
    if (!gap) return;
    problems.push(file.problem(['schedules', i], `schedule "${schedule.id}" has nobody on call from ${describeInstant(schedule, gap.startMs)}`
      + ` (the next ${COVERAGE_DAYS} days are checked): cover it with a rotation or a fallback, or set allowGaps: true`));
  });
  return problems;
}
