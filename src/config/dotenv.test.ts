import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { withDotenv } from './dotenv.js';

const root = mkdtempSync(join(tmpdir(), 'svc-dotenv-'));
after(() => rmSync(root, { recursive: true, force: true }));
function dir(name: string, text?: string): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  if (text !== undefined) writeFileSync(join(d, '.env'), text);
  return d;
}

describe('withDotenv', () => {
  it('reads DIR/.env; the real environment wins; SVC_HOME is ignored with a note', () => {
    const a = dir('a', '# comment\nINGEST_PORT=9999\nSLACK_USER="U 42"\nSVC_HOME=/elsewhere\n');
    const r = withDotenv([a], { INGEST_PORT: '8787', PATH: '/bin' });
    assert.equal(r.env.INGEST_PORT, '8787');
    assert.equal(r.env.SLACK_USER, 'U 42');
    assert.equal(r.env.SVC_HOME, undefined);
    assert.deepEqual(r.files, [join(a, '.env')]);
    assert.match(r.notes[0] ?? '', /SVC_HOME ignored/);
  });

  it('a directory without .env adds nothing; two files that agree merge', () => {
    const b = dir('b', 'X=1\n');
    const c = dir('c', 'X=1\nY=2\n');
    assert.deepEqual(withDotenv([dir('none'), b, c], {}).env, { X: '1', Y: '2' });
  });

  it('two files that disagree are a configuration error naming both and the key, not the values', () => {
    const d = dir('d', 'TOKEN=secret-one\n');
    const e = dir('e', 'TOKEN=secret-two\n');
    assert.throws(() => withDotenv([d, e], {}), (err: Error) => {
      assert.equal(err.name, 'ConfigError');
      assert.match(err.message, /e\/\.env: TOKEN: also set, differently, in .*d\/\.env/);
      assert.ok(!err.message.includes('secret-'));
      return true;
    });
  });

  it('a .env that would change a value silently, is not a regular file, or is over 64 KiB is a configuration error', () => {
    const bad = dir('bad', 'TOKEN=S3CRET-VALUE # note\n');
    assert.throws(() => withDotenv([bad], {}), (err: Error) => {
      assert.match(err.message, /bad\/\.env: line 1: TOKEN: a comment after an unquoted value/);
      assert.ok(!err.message.includes('S3CRET'));
      return true;
    });
    const fifo = dir('fifo');
    execFileSync('mkfifo', [join(fifo, '.env')]);
    assert.throws(() => withDotenv([fifo], {}), /fifo\/\.env: is a FIFO, not a regular file/);
    const big = dir('big', `A=${'x'.repeat(64 * 1024)}\n`);
    assert.throws(() => withDotenv([big], {}), /big\/\.env: is larger than 64 KiB/);
  });
});
