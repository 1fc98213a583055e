import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readBoundedFile, readFailureText, sizeText } from './read-bounded.js';

const root = mkdtempSync(join(tmpdir(), 'svc-bounded-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('readBoundedFile', () => {
  it('reads a regular file up to exactly the cap, and refuses one byte more from fstat', () => {
    const file = join(root, 'cap.txt');
    writeFileSync(file, 'x'.repeat(100));
    assert.deepEqual(readBoundedFile(file, { maxBytes: 100 }), { ok: true, text: 'x'.repeat(100) });
    assert.deepEqual(readBoundedFile(file, { maxBytes: 99 }), { ok: false, reason: 'too-large', maxBytes: 99, size: 100 });
  });

  it('refuses by reading when fstat does not know the size: it never reads more than the cap + 1', () => {
    // /proc files report size 0 and yet have content: the same path as a file that grew after fstat.
    const r = readBoundedFile('/proc/self/status', { maxBytes: 16 });
    assert.deepEqual(r, { ok: false, reason: 'too-large', maxBytes: 16, size: null });
    const whole = readBoundedFile('/proc/self/status', { maxBytes: 64 * 1024 });
    assert.ok(whole.ok && whole.text.includes('Pid:'));
  });

  it('refuses FIFOs (without a writer: no blocking), devices and directories', () => {
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    assert.deepEqual(readBoundedFile(fifo, { maxBytes: 10 }), { ok: false, reason: 'not-regular', kind: 'a FIFO' });
    assert.deepEqual(readBoundedFile('/dev/zero', { maxBytes: 10 }), { ok: false, reason: 'not-regular', kind: 'a character device' });
    assert.deepEqual(readBoundedFile(root, { maxBytes: 10 }), { ok: false, reason: 'not-regular', kind: 'a directory' });
  });

  it('says not-found for a missing file or a file in place of a directory', () => {
    writeFileSync(join(root, 'plain'), 'x');
    assert.deepEqual(readBoundedFile(join(root, 'absent'), { maxBytes: 10 }), { ok: false, reason: 'not-found' });
    assert.deepEqual(readBoundedFile(join(root, 'plain', 'below'), { maxBytes: 10 }), { ok: false, reason: 'not-found' });
  });

  it('privateFile: refuses a symbolic link and any group or other permission bit', () => {
    const dir = join(root, 'private');
    mkdirSync(dir);
    const file = join(dir, 'key');
    writeFileSync(file, 'k', { mode: 0o600 });
    symlinkSync(file, join(dir, 'link'));
    assert.deepEqual(readBoundedFile(join(dir, 'link'), { maxBytes: 10, privateFile: true }), { ok: false, reason: 'symlink' });
    // Without privateFile a link is followed.
    assert.deepEqual(readBoundedFile(join(dir, 'link'), { maxBytes: 10 }), { ok: true, text: 'k' });
    chmodSync(file, 0o640);
    assert.deepEqual(readBoundedFile(file, { maxBytes: 10, privateFile: true }), { ok: false, reason: 'group-or-other-access', mode: 0o640 });
    chmodSync(file, 0o400);
    assert.deepEqual(readBoundedFile(file, { maxBytes: 10, privateFile: true }), { ok: true, text: 'k' });
  });

  it('words the reasons without content', () => {
    assert.equal(sizeText(1024 * 1024), '1 MiB');
    assert.equal(sizeText(64 * 1024), '64 KiB');
    assert.equal(readFailureText({ ok: false, reason: 'too-large', maxBytes: 65536, size: 70000 }), 'is larger than 64 KiB (70000 bytes)');
    assert.equal(readFailureText({ ok: false, reason: 'group-or-other-access', mode: 0o644 }),
      'is accessible by group or others (mode 0644; chmod 600 it)');
  });
});
