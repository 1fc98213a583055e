/**
 * The deployment files (contract §13): `systemd-analyze verify` accepts deploy/svc.service (with its
 * ExecStart pointed at this build, since /usr/bin/svc is not installed here), and deploy/Dockerfile is
 * checked as far as can be without a Docker engine (none runs on these machines): every instruction is
 * one Docker knows, exec-form arrays parse, every COPY source exists, Node 20, a non-root user and the
 * $SVC_HOME volume.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SVC_BIN } from './support/svc.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('deploy/svc.service', () => {
  it('systemd-analyze verify accepts it, with no warning', { skip: hasSystemdAnalyze ? false : 'systemd-analyze is not installed (.ci/run installs systemd)' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
    try {
      const unit = readFileSync(join(ROOT, 'deploy', 'svc.service'), 'utf8');
      assert.match(unit, /^ExecStart=\/usr\/bin\/svc up /m);
      assert.match(unit, /^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
      assert.match(unit, /^RestartPreventExitStatus=2$/m);
      const file = join(dir, 'svc.service');
      writeFileSync(file, unit.replaceAll('/usr/bin/svc', `${process.execPath} ${SVC_BIN}`));
      const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      assert.equal(`${r.stdout}${r.stderr}`.trim(), '', 'systemd-analyze warned');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/Dockerfile', () => {
  const INSTRUCTIONS = new Set(['FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER', 'WORKDIR',
    'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL']);
  const text = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  // Instructions with their continuation lines joined; comments and blank lines dropped.
  const instructions = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => { const [word = '', ...rest] = l.split(/\s+/); return { word: word.toUpperCase(), args: rest.join(' ') }; });

  it('uses only instructions Docker knows, with exec-form arrays that parse', () => {
    for (const { word, args } of instructions) {
      assert.ok(INSTRUCTIONS.has(word), `unknown instruction ${word}`);
      if (['ENTRYPOINT', 'CMD', 'VOLUME'].includes(word) && args.startsWith('[')) assert.doesNotThrow(() => JSON.parse(args), `${word} ${args}`);
    }
    assert.equal(instructions[0]?.word, 'FROM');
  });

  it('builds from files that exist, on Node 20, runs as a non-root user with $SVC_HOME on a volume', () => {
    for (const { word, args } of instructions) {
      if (word !== 'COPY' || args.startsWith('--from')) continue;
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) assert.ok(existsSync(join(ROOT, source)), `COPY ${source}: no such file in the repository`);
    }
    const froms = instructions.filter((i) => i.word === 'FROM').map((i) => i.args);
    assert.ok(froms.every((f) => /^node:20[-\w.]*( AS \w+)?$/i.test(f)), froms.join(', '));
    const users = instructions.filter((i) => i.word === 'USER').map((i) => i.args);
    assert.deepEqual(users, ['svc']);
    assert.match(text, /SVC_HOME=\/var\/lib\/svc/);
    assert.deepEqual(JSON.parse(instructions.find((i) => i.word === 'VOLUME')?.args ?? '[]'), ['/var/lib/svc']);
    assert.deepEqual(JSON.parse(instructions.find((i) => i.word === 'CMD')?.args ?? '[]'), ['up', '/etc/svc/oncall']);
  });
});
