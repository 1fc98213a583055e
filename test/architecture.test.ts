/**
 * The import rule (.dependency-cruiser.cjs, docs/architecture.md) holds for the real tree, and it
 * can fail: a tree with one import against the flow, and one with a type-only cycle, are rejected by
 * the same command `npm run lint` runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');

function cruise(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(DEPCRUISE, ['src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'err'],
    { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A scratch project: the real tsconfig and the given source files. */
function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-arch-'));
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('the import rule', () => {
  const dirs: string[] = [];
  after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  it('the real tree follows it', () => {
    const r = cruise(ROOT);
    assert.equal(r.status, 0, r.out);
  });

  it('rejects an import against the flow (auth importing the control plane)', () => {
    const dir = scratch({
      'src/control-plane/server.ts': 'export const port = 9464;\n',
      'src/auth/guard.ts': "import { port } from '../control-plane/server.js';\nexport const p = port;\n",
    });
    dirs.push(dir);
    const r = cruise(dir);
    assert.notEqual(r.status, 0);
    assert.match(r.out, /flow-auth/);
    assert.match(r.out, /src\/auth\/guard\.ts → src\/control-plane\/server\.ts/);
  });

  it('rejects a type-only import cycle', () => {
    const dir = scratch({
      'src/store/a.ts': "import type { B } from './b.js';\nexport interface A { b: B }\n",
      'src/store/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    dirs.push(dir);
    const r = cruise(dir);
    assert.notEqual(r.status, 0);
    assert.match(r.out, /no-circular/);
  });
});
