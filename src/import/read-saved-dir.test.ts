import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CONTACT_CHANNELS } from './contact-channels.js';
import { ImportInputError } from './json-cursor.js';
import { readSavedDir } from './read-saved-dir.js';
import { VENDOR_SPECS } from './vendors.js';

function saved(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-saved-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
const inputError = (fn: () => unknown): ImportInputError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ImportInputError) return err;
    throw err;
  }
  assert.fail('no ImportInputError');
};

describe('saved answers', () => {
  it('reads pages in order, and X.2.json as a page only beside X.json (an id of digits stays an id)', () => {
    const answers = readSavedDir(saved({
      'v2/users.json': '{"data":[{"id":"a"}]}', 'v2/users.2.json': '{"data":[{"id":"b"}]}', 'v2/users.10.json': '{"data":[]}',
      'schedules/2.json': '{"schedule":{}}', 'notes.txt': 'not an answer',
    }));
    assert.throws(() => answers.list('v2/users', 'data'), /v2\/users\.3\.json: \$: missing, while v2\/users\.10\.json is there/);
    const ok = readSavedDir(saved({ 'v2/users.json': '{"data":[{"id":"a"}]}', 'v2/users.2.json': '{"data":[{"id":"b"}]}', 'schedules/2.json': '{"schedule":{}}' }));
    assert.deepEqual(ok.list('v2/users', 'data')?.map((u) => [u.file, u.path, u.field('id').str()]), [['v2/users.json', '$.data[0]', 'a'], ['v2/users.2.json', '$.data[0]', 'b']]);
    assert.ok(ok.has('schedules/2'));
    assert.deepEqual(ok.paths().sort(), ['schedules/2', 'v2/users']);
  });

  it('names the file and the place of a JSON mistake, without quoting the data', () => {
    const e = inputError(() => readSavedDir(saved({ 'v2/users.json': '{"data": [\n  {"id": "a", "username": "secret@x"},\n  {"id": }\n]}' })));
    assert.equal(e.file, 'v2/users.json');
    assert.match(e.message, /^v2\/users\.json: \$: not valid JSON/);
    assert.doesNotMatch(e.message, /secret/);
    assert.match(inputError(() => readSavedDir(saved({ 'users.json': '[1, 2]' }))).message, /users\.json: \$: expected a JSON object/);
    assert.match(inputError(() => readSavedDir(saved({ 'users.json': `{"a":${'['.repeat(80)}${']'.repeat(80)}}` }))).message, /nested too deep/);
  });

  it('names the file and JSON path of a value that is not what the vendor\'s API says', () => {
    const dir = saved({
      'users.json': JSON.stringify({ users: [{ id: 'P1', email: 'a@example.com', contact_methods: [], notification_rules: [] }, { id: 'P2', email: 42 }] }),
      'schedules.json': '{"schedules": []}', 'escalation_policies.json': '{"escalation_policies": []}',
    });
    const e = inputError(() => VENDOR_SPECS.pagerduty.map(readSavedDir(dir), { nowMs: 0, channels: DEFAULT_CONTACT_CHANNELS }));
    assert.equal(e.message, 'users.json: $.users[1].email: expected a string, found the number 42');
  });

  it('names the answer a mapping needs when it was not saved', () => {
    const dir = saved({ 'v2/users.json': JSON.stringify({ data: [{ id: 'u1', username: 'a@example.com' }] }) });
    const e = inputError(() => VENDOR_SPECS.opsgenie.map(readSavedDir(dir), { nowMs: 0, channels: DEFAULT_CONTACT_CHANNELS }));
    assert.equal(e.file, 'v2/schedules.json');
    assert.match(e.message, /missing: the import needs this answer/);
    assert.match(inputError(() => readSavedDir(join(dir, 'nope'))).message, /no such directory/);
  });
});
