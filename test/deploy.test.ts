/**
 * The deployment files (contract §13, §25.1): `systemd-analyze verify` accepts deploy/svc.service (with
 * `svc` pointed at this build, since none is installed here, and man/svc.1 where man finds it) and
 * `systemd-analyze security --offline=yes` scores it 2.5 (OK) or better; its paths are ones that exist
 * when it starts (systemd creates StateDirectory= and LogsDirectory=). test/release.e2e.test.ts verifies
 * it again with a real global install's paths. deploy/Dockerfile is checked as far as can be
 * without a Docker engine (none runs on these machines): every instruction is one Docker knows,
 * exec-form arrays parse, every COPY source exists, a supported Node LTS base, the healthcheck on the
 * port from the environment, a non-root user and the $SVC_HOME volume.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SVC_BIN } from './support/svc.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('deploy/svc.service', () => {
  const unit = readFileSync(join(ROOT, 'deploy', 'svc.service'), 'utf8');
  const values = (key: string): string[] => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1] as string);
  const skip = hasSystemdAnalyze ? false : 'systemd-analyze is not installed (.ci/run installs systemd)';
  /** Runs `systemd-analyze args… FILE` on the unit with its ExecStart pointed at this build. */
  const analyze = (args: string[]): { status: number | null; out: string } => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
    try {
      const file = join(dir, 'svc.service');
      writeFileSync(file, unit.replace(/^(Exec\w+)=svc /gm, `$1=${process.execPath} ${SVC_BIN} `));
      // Documentation=man:svc(1): verify runs man, which finds the page as a global install links it.
      mkdirSync(join(dir, 'man', 'man1'), { recursive: true });
      copyFileSync(join(ROOT, 'man', 'svc.1'), join(dir, 'man', 'man1', 'svc.1'));
      const r = spawnSync('systemd-analyze', [...args, file], { encoding: 'utf8', env: { ...process.env, MANPATH: join(dir, 'man') } });
      return { status: r.status, out: `${r.stdout}${r.stderr}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('runs svc from where `npm install --global` puts it, names its man page, keeps state and logs in directories systemd creates', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; man: string[] };
    assert.ok('svc' in manifest.bin, 'the package installs a `svc` command');
    // No directory: systemd looks the name up in /usr/local/bin and /usr/bin, the two prefixes of a global install.
    assert.deepEqual(values('ExecStart'), ['svc up /etc/svc/oncall']);
    assert.deepEqual(values('ExecStartPre'), ['svc check /etc/svc/oncall']);
    assert.deepEqual(values('ExecReload'), ['svc reload'], 'systemctl reload validates and applies the configuration (and reopens the logs)');
    assert.deepEqual(values('Documentation'), ['man:svc(1)']);
    assert.deepEqual(manifest.man, ['./man/svc.1'], 'the package installs the man page the unit names');
    assert.deepEqual(values('RestartPreventExitStatus'), ['2']);
    assert.deepEqual(values('StateDirectory'), ['svc']);
    assert.deepEqual(values('LogsDirectory'), ['svc']);
    assert.deepEqual(values('Environment').filter((e) => e.startsWith('SVC_HOME=')), ['SVC_HOME=/var/lib/svc'], 'the home is the state directory');
    // Every path the sandbox must find exists when the service starts: no ReadWritePaths= (a missing
    // one fails the start with 226/NAMESPACE); the bind mount's source is the logs directory.
    assert.deepEqual(values('ReadWritePaths'), []);
    assert.deepEqual(values('BindPaths'), ['/var/log/svc:/var/lib/svc/logs']);
  });

  it('systemd-analyze verify accepts it, with no warning', { skip }, () => {
    const r = analyze(['verify']);
    assert.equal(r.status, 0, r.out);
    assert.equal(r.out.trim(), '', 'systemd-analyze warned');
  });

  it('systemd-analyze security scores it 2.5 (OK) or better', { skip }, () => {
    const r = analyze(['security', '--offline=yes']);
    const score = /Overall exposure level for svc\.service: (\d+\.\d+) (\w+)/.exec(r.out);
    assert.ok(score, r.out);
    assert.ok(Number(score[1]) <= 2.5, `exposure ${score[1]} ${score[2]}`);
    assert.equal(score[2], 'OK');
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

  it('builds from files that exist, on a supported Node LTS (22 or later), runs as a non-root user with $SVC_HOME on a volume', () => {
    for (const { word, args } of instructions) {
      if (word !== 'COPY' || args.startsWith('--from')) continue;
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) assert.ok(existsSync(join(ROOT, source)), `COPY ${source}: no such file in the repository`);
    }
    const froms = instructions.filter((i) => i.word === 'FROM').map((i) => i.args);
    for (const from of froms) {
      const major = Number(/^node:(\d+)[-\w.]*( AS \w+)?$/i.exec(from)?.[1]);
      assert.ok(major >= 22 && major % 2 === 0, `${from}: Node LTS lines are the even majors; 20 is past its end of life`);
    }
    const users = instructions.filter((i) => i.word === 'USER').map((i) => i.args);
    assert.deepEqual(users, ['svc']);
    assert.ok(!/^(root|0)(:|$)/.test(users.at(-1) ?? 'root'), 'the last USER is not root');
    assert.match(text, /SVC_HOME=\/var\/lib\/svc/);
    assert.deepEqual(JSON.parse(instructions.find((i) => i.word === 'VOLUME')?.args ?? '[]'), ['/var/lib/svc']);
    assert.deepEqual(JSON.parse(instructions.find((i) => i.word === 'CMD')?.args ?? '[]'), ['up', '/etc/svc/oncall']);
  });

  it('checks health on the control-plane port the environment gives the daemon, not a fixed one', () => {
    const env = instructions.filter((i) => i.word === 'ENV').map((i) => i.args).join(' ');
    assert.match(env, /(^|\s)SVC_METRICS_PORT=\d+(\s|$)/, 'the image sets a default port');
    const health = instructions.find((i) => i.word === 'HEALTHCHECK')?.args ?? '';
    const cmd = /\bCMD\s+(\[.*\])$/.exec(health)?.[1];
    assert.ok(cmd, `HEALTHCHECK in exec form: ${health}`);
    const argv = JSON.parse(cmd) as string[];
    const script = argv.join(' ');
    assert.match(script, /process\.env\.SVC_METRICS_PORT/);
    assert.match(script, /\/readyz/);
    assert.doesNotMatch(script, /\b9464\b/, 'no port written into the check');
  });
});

describe('man/svc.1', () => {
  const page = readFileSync(join(ROOT, 'man', 'svc.1'), 'utf8');
  const hasGroff = spawnSync('groff', ['--version']).status === 0;

  it('describes every command `svc --help` lists', () => {
    const help = spawnSync(process.execPath, [SVC_BIN, '--help'], { encoding: 'utf8' }).stdout;
    const commands = [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1] as string).filter((c) => c !== 'help');
    assert.ok(commands.length > 20, help);
    // `.B name`, or several: `.B events\fR, \fPdlq\fR, \fPaudit` (font changes around the commas).
    const described = new Set([...page.matchAll(/^\.B (.+)$/gm)].flatMap((m) => (m[1] as string).replace(/\\f[BIPR]/g, '').split(/[, ]+/)));
    assert.deepEqual(commands.filter((c) => !described.has(c)), []);
  });

  it('renders without a warning', { skip: hasGroff ? false : 'groff is not installed' }, () => {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', join(ROOT, 'man', 'svc.1')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
  });
});
