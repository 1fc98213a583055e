/**
 * Control-plane authentication on the real daemon with a real OpenID provider (oidc-provider):
 * tokens from the client-credentials grant, the CLI getting its own token, a same-host nginx that
 * rewrites Host to 127.0.0.1 not opening the loopback door, and a real Prometheus scraping /metrics
 * through auth with its oauth2 client-credentials configuration.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIENCE, SCOPE, fetchToken, startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { startDaemon } from './support/daemon.js';
import type { Daemon } from './support/daemon.js';
import { freePort } from './support/http.js';
import { runSvc } from './support/svc.js';
import { waitFor } from './support/wait.js';

// Debian puts nginx in /usr/sbin, which is not on every user's PATH.
const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';

/** Scaffolds and starts a daemon whose control plane requires tokens from `idp`. */
function startAuthDaemon(idp: Idp, auth: Record<string, unknown>): Promise<Daemon> {
  return startDaemon({
    auth: { issuer: idp.issuer, audience: AUDIENCE, scopes: [SCOPE], ...auth },
    secrets: auth.clientSecretRef ? { 'cp/client': idp.clients['svc-cli'] ?? '' } : {},
  });
}

function spawnLogged(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.resume();
  return child;
}

describe('control-plane authentication end to end', () => {
  let idp: Idp;
  let strict: Daemon; // allowLoopback: false, oauth2-client
  let relaxed: Daemon; // allowLoopback: true (default)
  const children: ChildProcess[] = [];

  before(async () => {
    idp = await startIdp({ 'svc-cli': 'cli-secret-0123456789abcdef', prometheus: 'prom-secret-0123456789abcdef' });
    strict = await startAuthDaemon(idp, { provider: 'oauth2-client', allowLoopback: false, tokenEndpoint: idp.tokenEndpoint,
      clientId: 'svc-cli', clientSecretRef: 'secret:cp/client' });
    relaxed = await startAuthDaemon(idp, {});
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await strict?.stop();
    await relaxed?.stop();
    await idp?.close();
  });

  it('allowLoopback: false — a loopback request without a token gets 401 missing-token', async () => {
    const res = await fetch(`${strict.cp}/status`);
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.deepEqual(await res.json(), { error: 'missing bearer token', reason: 'missing-token' });
  });

  it('a client-credentials access token from the IdP opens /status', async () => {
    const token = await fetchToken(idp, 'svc-cli');
    const res = await fetch(`${strict.cp}/status`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const status = (await res.json()) as { controlPlane: { auth: unknown } };
    assert.deepEqual(status.controlPlane.auth, { enabled: true, provider: 'oauth2-client' });
    const garbage = await fetch(`${strict.cp}/status`, { headers: { authorization: 'Bearer not.a.jwt' } });
    assert.equal(garbage.status, 401);
    const body = (await garbage.json()) as { reason: string };
    assert.equal(body.reason, 'malformed-token');
    assert.ok(!JSON.stringify(body).includes(idp.issuer) && !JSON.stringify(body).includes(AUDIENCE));
  });

  it('the CLI gets its own token with the client-credentials grant, or takes SVC_TOKEN', async () => {
    const ps = await runSvc(['ps', '--json'], { env: strict.env, cwd: strict.dir });
    assert.equal(ps.code, 0, ps.stderr);
    assert.equal((JSON.parse(ps.stdout) as { version: number }).version, 1);
    const events = await runSvc(['events', '--json'], { env: strict.env, cwd: strict.dir });
    assert.equal(events.code, 0, events.stderr);
    const token = await fetchToken(idp, 'svc-cli');
    const elsewhere = await runSvc(['ps', '--url', strict.cp, '--dir', '/nonexistent'], { env: { ...strict.env, SVC_TOKEN: token }, cwd: '/' });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    const noToken = await runSvc(['ps', '--url', strict.cp, '--dir', '/nonexistent'], { env: strict.env, cwd: '/' });
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /missing-token/);
  });

  it('a real Prometheus scrapes /metrics through auth with its oauth2 client-credentials config', async () => {
    const work = join(strict.dir, 'prometheus');
    mkdirSync(work, { recursive: true });
    const promPort = await freePort();
    writeFileSync(join(work, 'prometheus.yml'), [
      'global: { scrape_interval: 1s, scrape_timeout: 1s }',
      'scrape_configs:',
      '  - job_name: svc',
      `    static_configs: [{ targets: ["127.0.0.1:${strict.cpPort}"] }]`,
      '    oauth2:',
      '      client_id: prometheus',
      `      client_secret: ${idp.clients.prometheus}`,
      `      token_url: ${idp.tokenEndpoint}`,
      `      scopes: ["${SCOPE}"]`,
      `      endpoint_params: { resource: "${AUDIENCE}" }`,
      '  - job_name: svc-without-token',
      `    static_configs: [{ targets: ["127.0.0.1:${strict.cpPort}"] }]`,
      '',
    ].join('\n'));
    children.push(spawnLogged('prometheus', [`--config.file=${join(work, 'prometheus.yml')}`, `--storage.tsdb.path=${join(work, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`]));
    const up = async (job: string): Promise<string | undefined> => {
      try {
        const q = new URLSearchParams({ query: `up{job="${job}"}` });
        const body = (await (await fetch(`http://127.0.0.1:${promPort}/api/v1/query?${q.toString()}`)).json()) as
          { data: { result: Array<{ value: [number, string] }> } };
        return body.data.result[0]?.value[1];
      } catch {
        return undefined;
      }
    };
    assert.equal(await waitFor('up{job="svc"} == 1', async () => ((await up('svc')) === '1' ? '1' : undefined), 60_000), '1');
    assert.equal(await waitFor('the tokenless job scraped', () => up('svc-without-token'), 30_000), '0');
  });

  it('allowLoopback: true — a direct loopback request bypasses auth; through a same-host nginx rewriting Host it does not', async () => {
    const direct = await fetch(`${relaxed.cp}/status`);
    assert.equal(direct.status, 200);
    const forwarded = await fetch(`${relaxed.cp}/status`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(forwarded.status, 401);

    const prefix = join(relaxed.dir, 'nginx');
    mkdirSync(join(prefix, 'tmp'), { recursive: true });
    const ngxPort = await freePort();
    writeFileSync(join(prefix, 'nginx.conf'), [
      // One process (no master and worker): the SIGKILL of `after` then leaves no orphaned worker behind.
      'master_process off;', 'daemon off;', `pid ${join(prefix, 'nginx.pid')};`, `error_log ${join(prefix, 'error.log')};`,
      'events { worker_connections 64; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${join(prefix, 'tmp', k)};`),
      '  server {',
      `    listen 127.0.0.1:${ngxPort};`,
      '    location / {',
      `      proxy_pass http://127.0.0.1:${relaxed.cpPort};`,
      `      proxy_set_header Host 127.0.0.1:${relaxed.cpPort};`,
      '      proxy_set_header X-Forwarded-For $remote_addr;',
      '      proxy_buffering off;',
      '    }',
      '  }',
      '}', '',
    ].join('\n'));
    children.push(spawnLogged(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf')]));
    const viaProxy = await waitFor('nginx answering', async () => {
      try { return await fetch(`http://127.0.0.1:${ngxPort}/status`); } catch { return undefined; }
    });
    assert.equal(viaProxy.status, 401);
    assert.equal(((await viaProxy.json()) as { reason: string }).reason, 'missing-token');
    const token = await fetchToken(idp, 'svc-cli');
    const withToken = await fetch(`http://127.0.0.1:${ngxPort}/status`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(withToken.status, 200);
  });
});
