/**
 * oncall.yaml files on disk for the loader's unit tests: each in a folder of its own under one
 * temporary root (removed after the test file), and the problems a load reports, one a line, each
 * without the folder part of its path (`oncall.yaml:4:13: people.0…`).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { ConfigError } from '../../src/core/errors.js';

export interface OncallFiles {
  /** The temporary root (a test's `home` may live below it). */
  root: string;
  /** A fresh folder holding `text` as its oncall.yaml (none for null). */
  dirWith: (text: string | null) => string;
  /** The folder `dirWith` made last (a message may name its full path). */
  lastDir: () => string;
  /** What `load` of a folder holding `text` refuses; fails the test when it loads. */
  problems: (text: string, load: (dir: string) => unknown) => string[];
}

export function oncallFiles(prefix: string): OncallFiles {
  const root = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const dirWith = (text: string | null): string => {
    const dir = join(root, `agent${++n}`);
    mkdirSync(dir, { recursive: true });
    if (text !== null) writeFileSync(join(dir, 'oncall.yaml'), text);
    return dir;
  };
  return {
    root,
    dirWith,
    lastDir: () => join(root, `agent${n}`),
    problems: (text, load) => {
      try {
        load(dirWith(text));
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.message.split('\n').map((l) => l.replace(/^[^:]*\/(oncall\.yaml)/, '$1'));
      }
      assert.fail('expected a ConfigError');
    },
  };
}
