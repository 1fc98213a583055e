/**
 * An oncall.yaml as the loader returns it, for unit tests of schedules and handoffs: one schedule
 * `primary` of daily shifts from 09:00 Berlin (08:00Z in November) — alice on 2026-11-23, bob on the
 * 24th, alice on the 25th, bob on the 26th… — with the contacts a test gives each person.
 */
import type { OncallConfig, Person } from '../../src/oncall/oncall-config.js';

export const HOUR = 3_600_000;

/** A person as the loader returns one written with only `id`, `contacts` (and what `extra` sets). */
export function testPerson(id: string, contacts: Record<string, string>, extra: Partial<Omit<Person, 'id' | 'contacts'>> = {}): Person {
  return { id, name: null, contacts, timeZone: null, notify: [], statusUpdates: null, login: null, ...extra };
}

export function dailyShifts(contacts: { alice: Record<string, string>; bob: Record<string, string> }): OncallConfig {
  return {
    people: [testPerson('alice', contacts.alice), testPerson('bob', contacts.bob)],
    schedules: [{ id: 'primary', timeZone: 'Europe/Berlin', rotations: [{ people: ['alice', 'bob'], everyMs: 24 * HOUR, handoff: '2026-11-23T09:00',
      only: [], timeZone: 'Europe/Berlin' }], fallback: null, allowGaps: false }],
    policies: [], routes: [], incidents: { key: { kind: 'groupKey' }, reopenWindowMs: 0 }, heartbeats: [],
  };
}

/**
 * An oncall.yaml that pages: P1 and P2 open a page under `default` (one step, alice on `dm`, an hour
 * long), incidents keyed by groupKey; `reopenWindowMs` and the heartbeats as the test says.
 */
export function pagingConfig(opts: { reopenWindowMs?: number; heartbeats?: OncallConfig['heartbeats'] } = {}): OncallConfig {
  return {
    people: [testPerson('alice', { dm: 'alice' })],
    schedules: [],
    policies: [{ id: 'default', steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: HOUR }], repeat: 0, ackTimeoutMs: 0, onExhausted: [] }],
    routes: [{ match: { severity: ['P1', 'P2'], labels: [] }, policy: 'default' }],
    incidents: { key: { kind: 'groupKey' }, reopenWindowMs: opts.reopenWindowMs ?? 0 },
    heartbeats: opts.heartbeats ?? [],
  };
}
