import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { oncallFiles } from '../../test/support/oncall-files.js';
import { loadOncall } from './load-oncall.js';

const { root, dirWith, lastDir, problems: problemsOf } = oncallFiles('svc-oncall-');
// Wednesday 2026-11-25 12:00 UTC.
const clock = fakeClock(Date.parse('2026-11-25T12:00:00Z'));
const ctx = () => ({ env: { ALICE_MAIL: 'alice@example.com' }, home: join(root, 'home'), nowMs: clock.now() });
const channels = [{ id: 'oncall-dm' }, { id: 'mail' }, { id: 'team-room' }];
const sources = [{ id: 'alertmanager' }];

const VALID = `# oncall.yaml
people:
  - id: alice
    name: Alice Example
    contacts:
      oncall-dm: alice
      mail: \${env:ALICE_MAIL}
  - id: bob
    contacts: { oncall-dm: bob }
  - id: carol
    contacts: { oncall-dm: carol }
schedules:
  - id: primary
    timeZone: Europe/Berlin
    rotations:
      - people: [alice, bob]
        every: 1w
        handoff: 2026-11-23T09:00
        only:
          - { days: [mon, tue, wed, thu, fri], from: "09:00", to: "18:00" }
    fallback: carol
  - id: secondary
    timeZone: America/New_York
    rotations:
      - { people: [carol], every: 1d, handoff: 2026-11-23T08:00 }
policies:
  - id: default
    steps:
      - { notify: [schedule:primary], after: 5m }
      - { notify: [person:carol, schedule:secondary], after: 10m }
    repeat: 2
    ackTimeout: 30m
    onExhausted: [channel:team-room]
routes:
  - { match: { severity: [P1, P2] }, policy: default }
  - { match: { severity: [P3] }, notify: [person:alice] }
incidents:
  key: "{{labels.alertname}}/{{labels.cluster}}"
  reopenWindow: 10m
heartbeats:
  - { id: watchdog, source: alertmanager, match: { alertname: Watchdog }, every: 5m, grace: 2m, policy: default }
`;

function load(text: string | null) {
  return loadOncall({ dir: dirWith(text), channels, sources }, ctx());
}
/** The problems of a file, each without the directory part of its path. */
const problems = (text: string): string[] => problemsOf(text, (dir) => loadOncall({ dir, channels, sources }, ctx()));

describe('loadOncall', () => {
  it('no oncall.yaml: null (the agent pages as before)', () => {
    assert.equal(load(null), null);
  });

  it('loads the contract example: durations in ms, targets and windows parsed, references resolved', () => {
    const config = load(VALID);
    assert.ok(config);
    const bare = { timeZone: null, notify: [], statusUpdates: null, login: null };
    assert.deepEqual(config.people[0], { id: 'alice', name: 'Alice Example', contacts: { 'oncall-dm': 'alice', mail: 'alice@example.com' }, ...bare });
    assert.deepEqual(config.people[1], { id: 'bob', name: null, contacts: { 'oncall-dm': 'bob' }, ...bare });
    assert.deepEqual(config.schedules[0], {
      id: 'primary', timeZone: 'Europe/Berlin', fallback: 'carol', allowGaps: false,
      rotations: [{ people: ['alice', 'bob'], everyMs: 604_800_000, handoff: '2026-11-23T09:00',
        only: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 540, toMinute: 1080 }], timeZone: 'Europe/Berlin' }],
    });
    assert.deepEqual(config.policies[0], {
      id: 'default', repeat: 2, ackTimeoutMs: 1_800_000, onExhausted: [{ kind: 'channel', id: 'team-room' }],
      steps: [
        { notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 300_000 },
        { notify: [{ kind: 'person', id: 'carol' }, { kind: 'schedule', id: 'secondary' }], afterMs: 600_000 },
      ],
    });
    assert.deepEqual(config.routes, [
      { match: { severity: ['P1', 'P2'], labels: [] }, policy: 'default' },
      { match: { severity: ['P3'], labels: [] }, notify: [{ kind: 'person', id: 'alice' }] },
    ]);
    assert.deepEqual(config.incidents, { key: { kind: 'template', template: '{{labels.alertname}}/{{labels.cluster}}' }, reopenWindowMs: 600_000 });
    assert.deepEqual(config.heartbeats, [{ id: 'watchdog', source: 'alertmanager', match: { alertname: 'Watchdog' }, everyMs: 300_000, graceMs: 120_000, policy: 'default' }]);
  });

  it('defaults: incident key groupKey, reopen window 10m, no repeat, ackTimeout off', () => {
    const config = load('people: [{ id: a, contacts: { oncall-dm: a } }]\npolicies: [{ id: p, steps: [{ notify: [person:a], after: 1s }] }]\n'
      + 'routes: [{ match: { severity: [P1] }, policy: p }]\n');
    assert.deepEqual(config?.incidents, { key: { kind: 'groupKey' }, reopenWindowMs: 600_000 });
    assert.equal(config?.policies[0]?.repeat, 0);
    assert.equal(config?.policies[0]?.ackTimeoutMs, 0);
  });

  it('names file, line, column and key path of every problem: the schema first, then the references', () => {
    const schema = VALID
      .replace('every: 1w', 'every: 5m')
      .replace('[person:carol, schedule:secondary]', '[carol, schedule:secondary]')
      .replace('reopenWindow: 10m', 'reopenWindow: 10m\n  colour: blue');
    assert.deepEqual(problems(schema), [
      'oncall.yaml:17:16: schedules.0.rotations.0.every: must be between 1h..4w',
      'oncall.yaml:30:20: policies.0.steps.1.notify.0: expected person:<id>, schedule:<id> or channel:<id>',
      'oncall.yaml:40:3: incidents.colour: unknown key "colour"',
    ]);
    const references = VALID
      .replace('timeZone: America/New_York', 'timeZone: America/Springfield')
      .replace('people: [alice, bob]', 'people: [alice, dave]')
      .replace('      mail: ${env:ALICE_MAIL}', '      pager: alice-pager')
      .replace('policy: default }\n  - { match', 'policy: defualt }\n  - { match')
      .replace('[person:carol, schedule:secondary]', '[person:carol, schedule:tertiary]')
      .replace('source: alertmanager', 'source: prometheus');
    assert.deepEqual(problems(references), [
      'oncall.yaml:7:14: people.0.contacts.pager: a contact on channel "pager", which the agent does not have (channels.yaml has oncall-dm, mail, team-room)',
      'oncall.yaml:16:25: schedules.0.rotations.0.people.1: unknown person "dave" (not in people)',
      'oncall.yaml:23:15: schedules.1.timeZone: unknown time zone "America/Springfield" (an IANA name such as Europe/Berlin or America/New_York)',
      'oncall.yaml:30:34: policies.0.steps.1.notify.1: unknown schedule "tertiary" (not in schedules)',
      'oncall.yaml:35:46: routes.0.policy: unknown policy "defualt" (not in policies)',
      'oncall.yaml:41:29: heartbeats.0.source: unknown source "prometheus" (event-sources.yaml has alertmanager)',
    ]);
  });

  it('refuses routes without exactly one of policy and notify, bad targets, bad times and dates, duplicate ids', () => {
    const text = [
      'people:',
      '  - { id: a, contacts: { oncall-dm: a } }',
      '  - { id: a, contacts: { oncall-dm: b } }',
      'schedules:',
      '  - id: s',
      '    timeZone: UTC',
      '    rotations:',
      '      - { people: [a], every: 1w, handoff: 2026-02-30T09:00, only: [{ from: "09:00", to: "25:00" }] }',
      '      - { people: [a], every: 1w, handoff: 2026-02-01, only: [{ days: [monday], from: "09:00", to: "10:00" }] }',
      '      - { people: [a], every: 1w, handoff: 2026-02-01T00:00, only: [{ days: [mon], from: "09:00", to: "09:00" }] }',
      'policies:',
      '  - { id: p, steps: [{ notify: [channel:nope], after: 2d }], repeat: 10, ackTimeout: soon }',
      'routes:',
      '  - { match: { severity: [P1] }, policy: p, notify: [person:a] }',
      '  - { match: { severity: [P4] } }',
      'incidents: { key: "{{alertname}}" }',
      '',
    ].join('\n');
    assert.deepEqual(problems(text), [
      'oncall.yaml:8:90: schedules.0.rotations.0.only.0.to: expected a local time "HH:MM" from 00:00 to 24:00',
      'oncall.yaml:9:44: schedules.0.rotations.1.handoff: expected a local date-time YYYY-MM-DDTHH:mm (no zone: the rotation\'s or schedule\'s timeZone applies)',
      'oncall.yaml:9:72: schedules.0.rotations.1.only.0.days.0: expected one of "mon", "tue", "wed", "thu", "fri", "sat", "sun"',
      'oncall.yaml:10:103: schedules.0.rotations.2.only.0.to: equals from: a window needs a length (leave out `only` for all day)',
      'oncall.yaml:12:55: policies.0.steps.0.after: must be between 1s..1d',
      'oncall.yaml:12:70: policies.0.repeat: must be <= 9',
      'oncall.yaml:12:86: policies.0.ackTimeout: expected a duration such as 30s, 5m, 2h, 1d or 1w (1m..1w, or 0 for off)',
      'oncall.yaml:14:5: routes.0: needs exactly one of policy (escalate) or notify (send once)',
      'oncall.yaml:15:27: routes.1.match.severity.0: expected one of "P1", "P2", "P3"',
      'oncall.yaml:16:19: incidents.key: expected groupKey, fingerprint or a template such as "{{labels.alertname}}/{{labels.cluster}}": placeholder {{alertname}} is not {{labels.NAME}}',
    ]);
    // Once the schema holds, the references: duplicate ids, a date that does not exist, an unknown channel.
    const schemaOk = text
      .replace(', only: [{ from: "09:00", to: "25:00" }]', '')
      .replace('handoff: 2026-02-01, only: [{ days: [monday], from: "09:00", to: "10:00" }]', 'handoff: 2026-02-01T00:00')
      .replace('to: "09:00" }]', 'to: "10:00" }, { days: [mon], from: "00:00", to: "24:00" }]')
      .replace('after: 2d }], repeat: 10, ackTimeout: soon', 'after: 2m }]')
      .replace(', notify: [person:a] }', ' }')
      .replace('  - { match: { severity: [P4] } }\n', '')
      .replace('{{alertname}}', 'fingerprint');
    assert.deepEqual(problems(schemaOk), [
      'oncall.yaml:3:11: people.1.id: duplicate person id "a" (first at oncall.yaml:2:11)'.replace('first at oncall.yaml', `first at ${join(lastDir(), 'oncall.yaml')}`),
      'oncall.yaml:8:44: schedules.0.rotations.0.handoff: not a real date and time',
      'oncall.yaml:12:33: policies.0.steps.0.notify.0: unknown channel "nope" (channels.yaml has oncall-dm, mail, team-room)',
    ]);
  });

  it('people: time zone, personal rules in order, status updates and a login (§21, §24.6); a rotation of its own zone (§24.5)', () => {
    const text = VALID
      .replace('    name: Alice Example\n', '    name: Alice Example\n    timeZone: Europe/Berlin\n    login: alice@example.com\n'
        + '    notify:\n      - { after: 0m, via: [oncall-dm] }\n      - { after: 2m, via: [mail, mail] }\n    statusUpdates: [mail]\n')
      .replace('{ people: [carol], every: 1d, handoff: 2026-11-23T08:00 }', '{ people: [carol], every: 1d, handoff: 2026-11-23T08:00, timeZone: Asia/Tokyo }');
    const config = load(text);
    assert.ok(config);
    assert.deepEqual(config.people[0], { id: 'alice', name: 'Alice Example', contacts: { 'oncall-dm': 'alice', mail: 'alice@example.com' },
      timeZone: 'Europe/Berlin', login: 'alice@example.com', statusUpdates: ['mail'],
      notify: [{ afterMs: 0, via: ['oncall-dm'] }, { afterMs: 120_000, via: ['mail'] }] });
    assert.equal(config.schedules[1]?.rotations[0]?.timeZone, 'Asia/Tokyo');
    assert.equal(config.schedules[0]?.rotations[0]?.timeZone, 'Europe/Berlin');
  });

  it('refuses personal rules on contacts the person lacks, out of order or out of range, unknown zones and a login twice', () => {
    const text = VALID
      .replace('    name: Alice Example\n', '    name: Alice Example\n    timeZone: Europe/Berlni\n    login: a@example.com\n'
        + '    notify:\n      - { after: 0m, via: [oncall-dm] }\n      - { after: 5m, via: [phone] }\n      - { after: 5m, via: [mail] }\n'
        + '    statusUpdates: [slack]\n')
      .replace('  - id: bob\n', '  - id: bob\n    login: A@example.com\n')
      .replace('{ people: [carol], every: 1d, handoff: 2026-11-23T08:00 }', '{ people: [carol], every: 1d, handoff: 2026-11-23T08:00, timeZone: Mars/Olympus }');
    const got = problems(text);
    assert.deepEqual(got.map((l) => l.replace(/\(oncall\.yaml:\d+:\d+\)|\(\/[^)]*\)/, '(…)')), [
      'oncall.yaml:5:15: people.0.timeZone: unknown time zone "Europe/Berlni" (an IANA name such as Europe/Berlin or America/New_York)',
      'oncall.yaml:9:28: people.0.notify.1.via.0: "phone" is not one of alice\'s contacts (oncall-dm, mail)',
      'oncall.yaml:10:18: people.0.notify.2.after: must come later than the rule before it (5m): rules are listed in the order they fire',
      'oncall.yaml:11:21: people.0.statusUpdates.0: "slack" is not one of alice\'s contacts (oncall-dm, mail)',
      'oncall.yaml:16:12: people.1.login: the same login as alice (…): a sign-in must map to one person',
      'oncall.yaml:33:76: schedules.1.rotations.0.timeZone: unknown time zone "Mars/Olympus" (an IANA name such as Europe/Berlin or America/New_York)',
    ]);
    const range = problems(VALID.replace('    name: Alice Example\n', '    name: Alice Example\n    notify:\n      - { after: 2h, via: [mail] }\n      - { after: 0, via: [] }\n'));
    assert.deepEqual(range, [
      'oncall.yaml:6:18: people.0.notify.0.after: must be between 1s..1h (or 0 for at once)',
      'oncall.yaml:7:26: people.0.notify.1.via: must have at least 1 item',
    ]);
  });

  it('coverage: the first instant of the next 14 days nobody covers, unless allowGaps', () => {
    const text = [
      'people: [{ id: a, contacts: { oncall-dm: a } }]',
      'schedules:',
      '  - id: business',
      '    timeZone: Europe/Berlin',
      '    rotations:',
      '      - { people: [a], every: 1w, handoff: 2026-11-23T09:00, only: [{ days: [mon, tue, wed, thu, fri], from: "09:00", to: "18:00" }] }',
      'routes: [{ match: { severity: [P1] }, notify: [schedule:business] }]',
      '',
    ].join('\n');
    // Now is Wednesday 13:00 in Berlin: covered until 18:00.
    assert.deepEqual(problems(text), ['oncall.yaml:3:5: schedules.0: schedule "business" has nobody on call from 2026-11-25 18:00 Europe/Berlin'
      + ' (2026-11-25T17:00:00Z) (the next 14 days are checked): cover it with a rotation or a fallback, or set allowGaps: true']);
    assert.ok(load(text.replace('    timeZone: Europe/Berlin', '    timeZone: Europe/Berlin\n    allowGaps: true')));
    assert.ok(load(text.replace('    timeZone: Europe/Berlin', '    timeZone: Europe/Berlin\n    fallback: a')));
    // A schedule that ends: a rotation covering only Fridays 2026-12-11 onwards still leaves the weekend.
    const ends = text.replace('days: [mon, tue, wed, thu, fri], from: "09:00", to: "18:00"', 'days: [mon, tue, wed, thu, fri, sat, sun], from: "00:00", to: "24:00"');
    assert.ok(load(ends));
  });

  it('names and addresses are one line without control characters', () => {
    assert.deepEqual(problems('people: [{ id: a, name: "A\\u0007", contacts: { oncall-dm: "a\\nb" } }]\nroutes: [{ match: { severity: [P1] }, notify: [person:a] }]\n'), [
      'oncall.yaml:1:25: people.0.name: must be one line without control characters',
      'oncall.yaml:1:59: people.0.contacts.oncall-dm: must be one line without control characters',
    ]);
  });

  it('routes on labels (§24.3): exact values and =~ RE2 patterns; a pattern RE2 refuses or too big is an error at its line and label', () => {
    const text = (labels: string): string => 'people: [{ id: a, contacts: { oncall-dm: a } }]\n'
      + `routes:\n  - { match: { severity: [P1], labels: ${labels} }, notify: [person:a] }\n  - { match: { severity: [P1] }, notify: [person:a] }\n`;
    assert.deepEqual(load(text('{ team: storage, env: "=~prod-.*" }'))?.routes[0]?.match, { severity: ['P1'], labels: [
      { label: 'team', op: '=', value: 'storage' }, { label: 'env', op: '=~', value: 'prod-.*' }] });
    assert.deepEqual(load(text('{ team: storage }'))?.routes[1]?.match, { severity: ['P1'], labels: [] });
    assert.deepEqual(problems(text('{ env: "=~prod-(?!eu)", host: "=~(a?){500}" }')), [
      'oncall.yaml:3:47: routes.0.match.labels.env: the regular expression after =~ is not RE2 syntax (invalid or unsupported Perl syntax: `(?!`); '
        + 'lookarounds and backreferences are not supported',
      'oncall.yaml:3:70: routes.0.match.labels.host: the regular expression after =~ compiles to 2002 instructions, more than 200 '
        + '(write fewer or smaller counted repeats such as {n})',
    ]);
    assert.deepEqual(problems(text('{ 1x: y }')), ['oncall.yaml:3:46: routes.0.match.labels.1x: is not a label name (letters, digits and _, not starting with a digit)']);
    assert.deepEqual(problems(text('{}')), ['oncall.yaml:3:40: routes.0.match.labels: must name at least one label (or leave out labels)']);
  });

  it('a file that is not a mapping, or a huge one, is refused with its path', () => {
    assert.deepEqual(problems(''), ['oncall.yaml:1:1: file is empty (expected a mapping)']);
    assert.match(problems(`people: []\n${'#'.repeat(1_100_000)}\n`)[0] as string, /oncall\.yaml: the file is larger than 1 MiB/);
  });
});

describe('contacts on channels with a form of their own (§21.4, §21.5)', () => {
  it('a twilio contact is E.164 and a telegram one a chat id: anything else is named at the contact, without quoting it', () => {
    const typed = [{ id: 'oncall-dm', type: 'file' }, { id: 'sms', type: 'twilio' }, { id: 'tg', type: 'telegram' }];
    const text = [
      'people:',
      '  - { id: a, contacts: { sms: "015112345678", tg: "@alice", oncall-dm: "any label" } }',
      '  - { id: b, contacts: { sms: "+4915112345678", tg: "-1001234567890" } }',
      'policies: [{ id: p, steps: [{ notify: [person:a], after: 1s }] }]',
      'routes: [{ match: { severity: [P1] }, policy: p }]',
      '',
    ].join('\n');
    let message = '';
    try {
      loadOncall({ dir: dirWith(text), channels: typed, sources }, ctx());
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      message = err.message.split('\n').map((l) => l.replace(/^[^:]*\/(oncall\.yaml)/, '$1')).join('\n');
    }
    assert.equal(message, [
      'oncall.yaml:2:31: people.0.contacts.sms: must be a phone number in E.164, e.g. "+4915112345678" (quoted: YAML reads +49… as a number) (channel sms is type: twilio)',
      'oncall.yaml:2:51: people.0.contacts.tg: must be a Telegram chat id, e.g. "123456789" (the private chat of the person with the bot) (channel tg is type: telegram)',
    ].join('\n'));
  });
});

describe('a channel: target needs the channel\'s own recipient (§17.2, §24.2)', () => {
  it('a slack channel with a conversation takes channel: targets; one with neither user nor conversation is named at each target', () => {
    const slack = [{ id: 'oncall-dm', type: 'file' }, { id: 'slack-room', type: 'slack', conversation: 'C0123ABC' }, { id: 'slack-dm', type: 'slack' }];
    const text = [
      'people:',
      '  - { id: a, contacts: { slack-dm: U0ALICE, slack-room: U0ALICE } }',
      'policies: [{ id: p, steps: [{ notify: [person:a, channel:slack-room], after: 1s }], onExhausted: [channel:slack-dm] }]',
      'routes: [{ match: { severity: [P1] }, policy: p }, { match: { severity: [P2] }, notify: [channel:slack-dm] }]',
      '',
    ].join('\n');
    let message = '';
    try {
      loadOncall({ dir: dirWith(text), channels: slack, sources }, ctx());
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      message = err.message.split('\n').map((l) => l.replace(/^[^:]*\/(oncall\.yaml)/, '$1')).join('\n');
    }
    const none = 'sends to the channel\'s own recipient, and slack channel slack-dm has none: set `user` or `conversation` on it in channels.yaml, '
      + 'or notify people here';
    assert.equal(message, [`oncall.yaml:3:99: policies.0.onExhausted.0: channel:slack-dm ${none}`,
      `oncall.yaml:4:90: routes.1.notify.0: channel:slack-dm ${none}`].join('\n'));
    const fixed = text.replaceAll('channel:slack-dm', 'channel:slack-room');
    assert.deepEqual(loadOncall({ dir: dirWith(fixed), channels: slack, sources }, ctx())?.policies[0]?.onExhausted, [{ kind: 'channel', id: 'slack-room' }]);
  });
});
