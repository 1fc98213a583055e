import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadOncall } from '../oncall/load-oncall.js';
import { FIXTURE_NOW_MS, importFixture } from '../../test/support/import-fixtures.js';
import { IMPORT_VENDORS } from './import-result.js';
import { oncallYamlText } from './write-oncall-yaml.js';

describe('oncall.yaml written by svc import', () => {
  for (const vendor of IMPORT_VENDORS) {
    it(`${vendor}: loads with svc's own loader (the channels the report names, the coverage check) into the imported config`, () => {
      const { result } = importFixture(vendor);
      const dir = mkdtempSync(join(tmpdir(), 'svc-import-yaml-'));
      writeFileSync(join(dir, 'oncall.yaml'), oncallYamlText(result.config, `Imported from ${vendor}`));
      const channels = result.channels.map((c) => ({ id: c.channelId }));
      const loaded = loadOncall({ dir, channels, sources: [] }, { env: {}, home: dir, nowMs: FIXTURE_NOW_MS });
      assert.deepEqual(loaded, result.config);
    });
  }

  it('writes durations, windows and targets as a person writes them', () => {
    const { result } = importFixture('opsgenie');
    const text = oncallYamlText(result.config, 'Imported from Opsgenie\nsecond line');
    assert.match(text, /^# Imported from Opsgenie\n# second line\n/);
    assert.match(text, /\n {6}- \{ ?after: 0m, via: \[mail\] ?\}\n {6}- \{ ?after: 1m, via: \[sms\] ?\}\n/);
    assert.match(text, /\n {8}every: 1w\n {8}handoff: 2026-03-02T09:00\n {8}only:\n {10}- \{ ?days: \[mon, tue, wed, thu, fri\], from: "?09:00"?, to: "?18:00"? ?\}\n/);
    assert.match(text, /- \{ ?notify: \[schedule:platform-primary\], after: 5m ?\}/);
    assert.match(text, /\n {4}repeat: 2\n/);
    assert.match(text, /sms: "\+4915112345678"/, 'a phone number stays a string');
  });
});
