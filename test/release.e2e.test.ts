/**
 * The tarball is the release (contract §25.1): `npm pack` of this build, installed with
 * `npm install --global` into a prefix of its own, is a working svc — `svc --help` naming the installed
 * docs, `man svc`, `svc init` with its port flags, a daemon that starts, takes an alert and stops — and
 * the systemd unit it ships passes `systemd-analyze verify` with that install's paths and man page.
 *
 * Cost: better-sqlite3's install script runs as on any machine, but finds its binary as a local
 * prebuild (`npm_config_better_sqlite3_local_prebuilds`, read by prebuild-install) made from the one
 * `npm ci` compiled for this checkout, instead of downloading it or compiling it again (1-4 minutes
 * here); the other packages come from npm's cache when it has them. About 30 s in all.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from './support/http.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; scripts: Record<string, string> };
const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

/** The environment of the npm commands: this one without what `npm test` adds for its own scripts. */
function npmEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, ...extra };
}

interface Ran { code: number | null; out: string; stdout: string }

function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Ran {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env, encoding: 'utf8', timeout: opts.timeoutMs ?? 60_000 });
  return { code: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}${r.error ? String(r.error) : ''}` };
}

describe('the release tarball, installed globally', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-release-'));
  const prefix = join(root, 'prefix');
  const installed = join(prefix, 'lib', 'node_modules', pkg.name);
  const bin = join(prefix, 'bin', 'svc');
  const home = join(root, 'home');
  const work = join(root, 'work');
  const svcEnv: NodeJS.ProcessEnv = { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: root, SVC_HOME: home, NO_COLOR: '1' };
  const svc = (args: string[], cwd = root): Ran => run(bin, args, { cwd, env: svcEnv });
  let tarball = '';
  after(() => {
    svc(['down'], join(work, 'oncall'));
    rmSync(root, { recursive: true, force: true });
  });

  it('npm pack builds first, and packs the build, the templates, the docs, the man page and the unit, no tests', () => {
    assert.equal(pkg.scripts.prepack, 'npm run build', 'a fresh checkout has no dist/: npm pack must build it');
    assert.ok(existsSync(join(ROOT, 'dist', 'main.js')), 'build first (npm test does)');
    // The build is there already: pack it without building it again.
    const r = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: ROOT, env: npmEnv({}) });
    assert.equal(r.code, 0, r.out);
    const [packed] = JSON.parse(r.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(packed);
    tarball = join(root, packed.filename);
    assert.equal(packed.filename, `${pkg.name}-${pkg.version}.tgz`);
    const files = packed.files.map((f) => f.path);
    for (const f of ['dist/main.js', 'README.md', 'docs/operations.md', 'docs/oncall.md', 'docs/configuration.md', 'man/svc.1',
      'deploy/svc.service', 'dashboards/svc-fleet.json', 'templates/alert-escalation/agent.yaml',
      'templates/alert-escalation/fixtures/mock-alert-resolved.json']) {
      assert.ok(files.includes(f), `${f} is in the tarball`);
    }
    assert.deepEqual(files.filter((f) => /(^|\/)(src|test)\/|\.test\.js$|^\.svc-demo/.test(f)), [], 'no sources, tests or demo files');
  });

  it('npm install --global installs it, better-sqlite3 by its own install script, svc on PATH and man svc', () => {
    const sqlite = join(ROOT, 'node_modules', 'better-sqlite3');
    const sqliteVersion = (JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string }).version;
    const prebuilds = join(root, 'prebuilds');
    // prebuild-install's file name for this platform (glibc Linux: no libc part).
    const name = `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    const tar = run('sh', ['-c', `mkdir -p "${prebuilds}" && tar czf "${join(prebuilds, name)}" build/Release/better_sqlite3.node`], { cwd: sqlite, env: npmEnv({}) });
    assert.equal(tar.code, 0, tar.out);

    const r = run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      { cwd: root, env: npmEnv({ npm_config_better_sqlite3_local_prebuilds: prebuilds }), timeoutMs: 300_000 });
    assert.equal(r.code, 0, r.out);
    // The install script ran and took the local prebuild: the very binary npm ci compiled here.
    const addon = join(installed, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    assert.ok(existsSync(addon), r.out);
    assert.ok(readFileSync(addon).equals(readFileSync(join(sqlite, 'build', 'Release', 'better_sqlite3.node'))), 'unpacked from the prebuild');
    assert.ok(!existsSync(join(installed, 'node_modules', 'typescript')), 'no devDependencies');

    assert.equal(realpathSync(bin), join(installed, 'dist', 'main.js'));
    const man = run('man', ['-w', 'svc'], { cwd: root, env: { ...svcEnv, MANPATH: join(prefix, 'share', 'man') } });
    assert.equal(man.code, 0, man.out);
    assert.equal(realpathSync(man.stdout.trim()), join(installed, 'man', 'svc.1'));
  });

  it('svc --help names the installed docs; svc init writes the ports it is given; the daemon runs and stops', async () => {
    assert.equal(svc(['--version']).stdout.trim(), pkg.version);
    const help = svc(['--help']);
    assert.equal(help.code, 0, help.out);
    const docs = /^Documentation: (\S+) /m.exec(help.stdout)?.[1];
    assert.equal(docs, join(installed, 'docs'));
    assert.ok(readdirSync(docs).includes('operations.md'));

    const [port, controlPort] = [await freePort(), await freePort()];
    const init = svc(['init', '--template', 'alert-escalation', '--provider', 'rules', '--port', String(port), '--control-port', String(controlPort),
      join(work, 'oncall')]);
    assert.equal(init.code, 0, init.out);
    const dir = join(work, 'oncall');
    assert.match(readFileSync(join(dir, 'alertmanager.yml'), 'utf8'), new RegExp(`url: http://127\\.0\\.0\\.1:${port}/webhooks/alertmanager\\n`));
    const up = svc(['up', '-d'], dir);
    assert.equal(up.code, 0, up.out);
    assert.match(up.stdout, new RegExp(`control plane: http://127\\.0\\.0\\.1:${controlPort}\\n`));
    const sent = svc(['webhook', 'send', 'fixtures/mock-alert.json'], dir);
    assert.match(sent.stdout, /HTTP 202 /, sent.out);
    const ps = svc(['ps'], dir);
    assert.match(ps.stdout, new RegExp(`^ingest +oncall-escalator +alertmanager +127\\.0\\.0\\.1:${port} `, 'm'), ps.out);
    const verify = svc(['audit', '--verify'], dir);
    assert.equal(verify.code, 0, verify.out);
    assert.match(verify.stdout, /^chain ok: /);
    const down = svc(['down'], dir);
    assert.equal(down.code, 0, down.out);
  });

  it('the unit it ships passes systemd-analyze verify with this install\'s svc and man page', { skip: hasSystemdAnalyze ? false : 'systemd-analyze is not installed (.ci/run installs systemd)' }, () => {
    const unit = readFileSync(join(installed, 'deploy', 'svc.service'), 'utf8');
    assert.equal(unit, readFileSync(join(ROOT, 'deploy', 'svc.service'), 'utf8'));
    // systemd finds `svc` in /usr/local/bin or /usr/bin, where a global install into those prefixes puts it;
    // this one is in a prefix of its own, so its path goes where the unit names `svc`, and nothing else changes.
    const file = join(root, 'svc.service');
    writeFileSync(file, unit.replace(/^(Exec\w+)=svc /gm, `$1=${bin} `));
    assert.notEqual(readFileSync(file, 'utf8'), unit);
    const r = run('systemd-analyze', ['verify', file], { cwd: root, env: { ...svcEnv, MANPATH: join(prefix, 'share', 'man') } });
    assert.equal(r.code, 0, r.out);
    assert.equal(r.out.trim(), '', 'systemd-analyze warned');
  });
});
