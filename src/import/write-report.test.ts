import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { IMPORT_OBJECT_KINDS } from './import-result.js';
import { FIXTURE_NOW_MS, importFixture } from '../../test/support/import-fixtures.js';
import { reportText, overrideCommands } from './write-report.js';

const { result } = importFixture('opsgenie');
const ctx = { label: 'Opsgenie', from: '/exports/og', out: '/agent/oncall.yaml', nowMs: FIXTURE_NOW_MS, agent: 'oncall-escalator' };

describe('import-report.md', () => {
  it('lists every line of the import under its kind, with what became of it', () => {
    const text = reportText(result, ctx, null);
    for (const line of result.lines) {
      const row = `| ${line.source.replace(/\|/g, '\\|')} | ${line.target ?? '—'} | ${line.outcome.replace('-', ' ')} | ${line.note} |`;
      assert.ok(text.includes(row), row);
    }
    assert.match(text, /^Imported 2026-03-20T12:00:00Z from \/exports\/og into \/agent\/oncall\.yaml: 4 people, 3 schedules, 2 policies, 1 override\.$/m);
    assert.match(text, /\*\*Not everything mapped exactly \(exit 3\)\.\*\* 31 mapped, 6 approximated, 7 not mapped\./);
    assert.match(text, /\n## Contact methods \(11\)\n/);
    assert.match(text, /\| Escalation rules \| 3 \| 2 \| 0 \|/);
  });

  it('says which channels.yaml entries the contacts need, what the import added, and the overrides to add', () => {
    const text = reportText(result, ctx, null);
    assert.match(text, /```yaml\nchannels:\n {2}- \{ id: mail, type: email, .*\n {2}- \{ id: sms, type: twilio, direction: outbound, mode: sms, .*\n {2}- \{ id: phone, type: twilio, direction: outbound, mode: voice, .*\n```/);
    assert.match(text, /- routes: every alert \(P1, P2, P3\) goes to policy platform-escalation; Opsgenie routes alerts with each team's routing rules/);
    assert.match(text, /```sh\nsvc oncall override add --schedule platform-primary --person bob --from 2026-03-25T08:00:00Z --to 2026-03-26T08:00:00Z --agent oncall-escalator\n```/);
    assert.deepEqual(overrideCommands(result, null), ['svc oncall override add --schedule platform-primary --person bob --from 2026-03-25T08:00:00Z --to 2026-03-26T08:00:00Z']);
  });

  it('docs/import.md names every kind of object the report lists', () => {
    const docs = readFileSync(new URL('../../docs/import.md', import.meta.url), 'utf8');
    const paragraph = /## The report\n\n([\s\S]*?)\n\n/.exec(docs)?.[1]?.replace(/\s+/g, ' ') ?? '';
    for (const kind of IMPORT_OBJECT_KINDS) assert.ok(paragraph.includes(kind.replace('-', ' ')), kind);
  });

  it('shows the verification: each schedule compared, each difference as vendor and svc see it', () => {
    const text = reportText(result, ctx, {
      outcomes: [
        { scheduleId: 'platform-primary', source: 'schedule Platform Primary', fromMs: FIXTURE_NOW_MS, toMs: FIXTURE_NOW_MS + 86_400_000, cut: false, differences: [] },
        { scheduleId: 'database', source: 'schedule Database', fromMs: FIXTURE_NOW_MS, toMs: FIXTURE_NOW_MS + 86_400_000, cut: true,
          differences: [{ scheduleId: 'database', fromMs: FIXTURE_NOW_MS, toMs: FIXTURE_NOW_MS + 3_600_000, vendor: ['alice', 'carol'], svc: null }] },
      ],
      notCompared: ['schedule legacy (S1)'],
    });
    assert.match(text, /## Verification\n\n2 schedule\(s\) compared with Opsgenie's own rendering at every instant of its window; 1 differ\./);
    assert.match(text, /- platform-primary \(schedule Platform Primary\), 2026-03-20T12:00:00Z – 2026-03-21T12:00:00Z: identical/);
    assert.match(text, /- database \(schedule Database\), .* \(the first 28 days of a longer rendering\): 1 difference\(s\)/);
    assert.match(text, /- schedule legacy \(S1\): not compared/);
    assert.match(text, /\| database \| 2026-03-20T12:00:00Z \| 2026-03-20T13:00:00Z \| alice \+ carol \| nobody \|/);
  });
});
