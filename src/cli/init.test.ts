import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { cliHarness } from '../../test/support/cli.js';
import { loadAgents } from '../config/load-agent.js';
import { resolveSettings } from '../config/settings.js';
import { runCli } from './program.js';

describe('svc init --port --control-port (contract §25.3)', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-init-'));
  const env = { SVC_HOME: join(root, 'home'), PATH: process.env.PATH };
  after(() => rmSync(root, { recursive: true, force: true }));
  const init = async (...args: string[]): Promise<{ code: number; err: string }> => {
    const h = cliHarness(env, root);
    const code = await runCli(['init', '--template', 'alert-escalation', '--provider', 'rules', ...args], h.ctx);
    return { code, err: h.err() };
  };
  const read = (dir: string, file: string): string => readFileSync(join(root, dir, file), 'utf8');

  it('writes both ports into every file that names them, and the daemon would listen there', async () => {
    assert.deepEqual(await init('--port', '18787', '--control-port', '19464', 'moved'), { code: 0, err: '' });
    assert.match(read('moved', 'alertmanager.yml'), /^ {6}- url: http:\/\/127\.0\.0\.1:18787\/webhooks\/alertmanager$/m);
    assert.match(read('moved', 'event-sources.yaml'), /^# {3}http:\/\/127\.0\.0\.1:18787\/webhooks\/alertmanager$/m);
    assert.match(read('moved', 'README.md'), /posts to `http:\/\/127\.0\.0\.1:18787\/webhooks\/alertmanager`/);
    assert.deepEqual((parse(read('moved', 'agent.yaml')) as { controlPlane: unknown }).controlPlane, { bind: '127.0.0.1', port: 19464 });
    const agents = loadAgents([join(root, 'moved')], { env, home: env.SVC_HOME });
    assert.deepEqual(agents[0]?.sources.map((s) => s.port), [18787]);
    assert.equal(resolveSettings(agents, env, env.SVC_HOME).controlPlane.port, 19464);
  });

  it('without them: 8787, and the control plane left to its default (a comment shows it)', async () => {
    assert.deepEqual(await init('--id', 'plain', 'plain'), { code: 0, err: '' });
    assert.match(read('plain', 'alertmanager.yml'), /url: http:\/\/127\.0\.0\.1:8787\/webhooks\/alertmanager$/m);
    assert.equal((parse(read('plain', 'agent.yaml')) as Record<string, unknown>).controlPlane, undefined);
    assert.match(read('plain', 'agent.yaml'), /^# {3}port: 9464$/m);
    const agents = loadAgents([join(root, 'plain')], { env, home: env.SVC_HOME });
    assert.deepEqual(agents[0]?.sources.map((s) => s.port), [8787]);
    assert.equal(resolveSettings(agents, env, env.SVC_HOME).controlPlane.port, 9464);
  });

  it('a port that is not one, or one port for both, is a usage error and writes nothing', async () => {
    for (const [args, message] of [
      [['--port', '0'], 'svc init: --port "0" must be a port number 1-65535'],
      [['--port', '65536'], 'svc init: --port "65536" must be a port number 1-65535'],
      [['--control-port', '94x64'], 'svc init: --control-port "94x64" must be a port number 1-65535'],
      [['--port', '9464'], 'svc init: the webhook source and the control plane cannot share port 9464; choose another with --control-port'],
      [['--port', '9000', '--control-port', '9000'], 'svc init: the webhook source and the control plane cannot share port 9000; choose another with --port'],
    ] as const) {
      const r = await init('--id', 'refused', ...args, 'refused');
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.err, `${message}\n`);
      assert.ok(!existsSync(join(root, 'refused')), 'nothing written');
    }
  });
});
