/**
 * Where CLI commands get their bearer token (token-source.ts), and that ps, events and logs send it,
 * run in-process through runCli against a small node:http server that plays both the token endpoint
 * and the control plane.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSecret } from '../config/secrets.js';
import { ConfigError, UsageError } from '../core/errors.js';
import { runCli } from './program.js';
import { createTokenSource } from './token-source.js';
import { cliHarness } from '../../test/support/cli.js';
import { waitFor } from '../../test/support/wait.js';

const CLIENT_ID = 'svc-cli';
const SECRET = 'cli-secret-0123456789abcdef';
const AUDIENCE = 'urn:svc:control-plane';

const harness = cliHarness;

type Route = (req: IncomingMessage, res: ServerResponse) => void;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

describe('CLI bearer tokens', () => {
  let server: Server;
  let origin: string;
  let root: string;
  let home: string;
  let tokensIssued = 0;
  const tokenRequests: Array<{ authorization: string | undefined; body: string }> = [];
  /** Control-plane requests seen: path and the Authorization and Last-Event-ID headers. */
  const seen: Array<{ path: string; authorization: string | undefined; lastEventId: string | undefined }> = [];
  let routes = new Map<string, Route>();

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-token-source-'));
    home = join(root, 'home');
    writeSecret(home, 'cp/client', SECRET);
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/token') {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => { body += c; });
        req.on('end', () => {
          tokenRequests.push({ authorization: req.headers.authorization, body });
          const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64')}`;
          if (req.headers.authorization !== expected) {
            sendJson(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
            return;
          }
          sendJson(res, 200, { access_token: `tok-${++tokensIssued}`, token_type: 'Bearer', expires_in: 300, scope: 'control:read' });
        });
        return;
      }
      seen.push({ path, authorization: req.headers.authorization, lastEventId: req.headers['last-event-id'] as string | undefined });
      const route = routes.get(path);
      if (route) route(req, res);
      else sendJson(res, 404, { error: 'not found' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    tokenRequests.length = 0;
    seen.length = 0;
    routes = new Map();
  });

  /** An agent directory whose controlPlane.auth is `auth` (YAML lines under `auth:`). */
  const agentDir = (name: string, auth: string[] | null): string => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    const lines = ['id: cli-test', 'provider: rules'];
    if (auth) lines.push('controlPlane:', '  auth:', ...auth.map((l) => `    ${l}`));
    writeFileSync(join(dir, 'agent.yaml'), lines.join('\n') + '\n');
    return dir;
  };
  const oauth2Client = (secretRef = 'secret:cp/client'): string[] => [
    'enabled: true', 'provider: oauth2-client', `issuer: ${origin}`, `audience: "${AUDIENCE}"`, 'scopes: [control:read]',
    `tokenEndpoint: ${origin}/token`, `clientId: ${CLIENT_ID}`, `clientSecretRef: "${secretRef}"`,
  ];
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ SVC_HOME: home, SVC_METRICS_PORT: '0', ...extra });
  const status = { version: 1, pid: 1 };

  describe('createTokenSource', () => {
    it('SVC_TOKEN wins over the configuration and is used as is; it cannot be renewed', async () => {
      const dir = agentDir('env-wins', oauth2Client('secret:cp/missing'));
      const source = createTokenSource(harness(env({ SVC_TOKEN: 'ey.from-env.x' }), root).ctx, { dir });
      assert.equal(await source.token(), 'ey.from-env.x');
      assert.equal(source.refresh(), false);
      assert.equal(source.origin, 'SVC_TOKEN');
      assert.equal(tokenRequests.length, 0);
    });

    it('SVC_TOKEN that cannot go into a header is a usage error that does not quote it', () => {
      assert.throws(() => createTokenSource(harness(env({ SVC_TOKEN: 'abc\ndef' }), root).ctx),
        (err: unknown) => err instanceof UsageError && !err.message.includes('abc'));
    });

    it('oauth2-client in agent.yaml: the client-credentials grant with the secret behind clientSecretRef, audience and scopes', async () => {
      agentDir('oauth2', oauth2Client());
      // --dir is relative to the working directory.
      const source = createTokenSource(harness(env(), root).ctx, { dir: 'oauth2' });
      assert.match(source.origin ?? '', /^client credentials \(.*oauth2\/agent\.yaml\)$/);
      const first = await source.token();
      assert.match(first ?? '', /^tok-\d+$/);
      assert.equal(await source.token(), first, 'cached for the process');
      assert.equal(tokenRequests.length, 1);
      assert.deepEqual(Object.fromEntries(new URLSearchParams(tokenRequests[0]!.body)),
        { grant_type: 'client_credentials', scope: 'control:read', audience: AUDIENCE, resource: AUDIENCE });
      assert.equal(source.refresh(), true);
      assert.notEqual(await source.token(), first);
      assert.equal(tokenRequests.length, 2);
    });

    it('an env: clientSecretRef works too', async () => {
      const dir = agentDir('env-ref', oauth2Client('env:CP_CLIENT_SECRET'));
      const source = createTokenSource(harness(env({ CP_CLIENT_SECRET: SECRET }), root).ctx, { dir });
      assert.match((await source.token()) ?? '', /^tok-\d+$/);
    });

    it('an unresolvable clientSecretRef is a configuration error naming the file, line and key', () => {
      const dir = agentDir('missing-secret', oauth2Client('secret:cp/missing'));
      assert.throws(() => createTokenSource(harness(env(), root).ctx, { dir }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /missing-secret\/agent\.yaml:\d+:\d+: controlPlane\.auth\.clientSecretRef: secret "cp\/missing" not found/);
        return true;
      });
      const unset = agentDir('unset-env', oauth2Client('env:NOT_SET_ANYWHERE'));
      assert.throws(() => createTokenSource(harness(env(), root).ctx, { dir: unset }),
        /controlPlane\.auth\.clientSecretRef: environment variable "NOT_SET_ANYWHERE" is not set/);
    });

    it('no token: no agent.yaml, no auth block, auth disabled, or provider oidc', async () => {
      const cases = [
        join(root, 'does-not-exist'),
        agentDir('no-auth', null),
        agentDir('disabled', ['enabled: false']),
        agentDir('oidc', ['enabled: true', 'provider: oidc', `issuer: ${origin}`, 'audience: svc']),
      ];
      for (const dir of cases) {
        const source = createTokenSource(harness(env(), root).ctx, { dir });
        assert.equal(await source.token(), null, dir);
        assert.equal(source.origin, null);
        assert.equal(source.refresh(), false);
      }
    });

    it('an invalid agent.yaml is reported like svc up reports it', () => {
      const dir = agentDir('invalid', ['enabled: true', 'provider: oauth2-client', `issuer: ${origin}`, 'audience: svc']);
      assert.throws(() => createTokenSource(harness(env(), root).ctx, { dir }),
        /agent\.yaml:\d+:\d+: controlPlane\.auth\.tokenEndpoint: required key missing \(provider oauth2-client\)/);
    });
  });

  describe('runCli sends the token', () => {
    it('ps --url: Authorization: Bearer from SVC_TOKEN; never printed', async () => {
      routes.set('/status', (_q, res) => sendJson(res, 200, status));
      const h = harness(env({ SVC_TOKEN: 'secret-token-value' }), root);
      assert.equal(await runCli(['ps', '--json', '--url', origin, '--dir', join(root, 'nowhere')], h.ctx), 0, h.err());
      assert.deepEqual(seen.map((s) => s.authorization), ['Bearer secret-token-value']);
      assert.deepEqual(JSON.parse(h.out()), status);
      assert.ok(!h.out().includes('secret-token-value') && !h.err().includes('secret-token-value'));
    });

    it('ps --dir with oauth2-client: a client-credentials token', async () => {
      routes.set('/status', (_q, res) => sendJson(res, 200, status));
      const dir = agentDir('ps-oauth2', oauth2Client());
      const h = harness(env(), root);
      assert.equal(await runCli(['ps', '--json', '--url', origin, '--dir', dir], h.ctx), 0, h.err());
      assert.equal(tokenRequests.length, 1);
      assert.match(seen[0]?.authorization ?? '', /^Bearer tok-\d+$/);
    });

    it('a 401 answer: exit 1 naming the reason', async () => {
      routes.set('/status', (_q, res) => sendJson(res, 401, { error: 'audience mismatch', reason: 'wrong-audience' }));
      const h = harness(env({ SVC_TOKEN: 'some-token' }), root);
      assert.equal(await runCli(['ps', '--url', origin], h.ctx), 1);
      assert.equal(h.err(), 'svc: control plane refused the request: wrong-audience\n');
      assert.equal(h.out(), '');
    });

    it('no token and 401 missing-token: exit 1 with the reason and a hint', async () => {
      routes.set('/status', (_q, res) => sendJson(res, 401, { error: 'missing bearer token', reason: 'missing-token' }));
      const h = harness(env(), root);
      assert.equal(await runCli(['ps', '--url', origin, '--dir', join(root, 'nowhere')], h.ctx), 1);
      assert.equal(seen[0]?.authorization, undefined);
      assert.match(h.err(), /^svc: control plane refused the request: missing-token\nsvc: no token was sent: set SVC_TOKEN/);
    });

    it('401 expired: one fresh client-credentials token and one retry', async () => {
      let calls = 0;
      routes.set('/status', (_q, res) => {
        if (++calls === 1) sendJson(res, 401, { error: 'token expired', reason: 'expired' });
        else sendJson(res, 200, status);
      });
      const dir = agentDir('retry', oauth2Client());
      const h = harness(env(), root);
      assert.equal(await runCli(['ps', '--json', '--url', origin, '--dir', dir], h.ctx), 0, h.err());
      assert.equal(tokenRequests.length, 2);
      assert.equal(seen.length, 2);
      assert.notEqual(seen[0]?.authorization, seen[1]?.authorization);
    });

    it('401 expired twice, or with SVC_TOKEN: exit 1, reason expired, no loop', async () => {
      routes.set('/status', (_q, res) => sendJson(res, 401, { error: 'token expired', reason: 'expired' }));
      const dir = agentDir('retry-twice', oauth2Client());
      const h = harness(env(), root);
      assert.equal(await runCli(['ps', '--url', origin, '--dir', dir], h.ctx), 1);
      assert.equal(h.err(), 'svc: control plane refused the request: expired\n');
      assert.equal(seen.length, 2);
      seen.length = 0;
      const withEnv = harness(env({ SVC_TOKEN: 'static' }), root);
      assert.equal(await runCli(['ps', '--url', origin], withEnv.ctx), 1);
      assert.equal(seen.length, 1);
      assert.match(withEnv.err(), /refused the request: expired/);
    });

    it('a reason that is not a reason word is not echoed', async () => {
      routes.set('/status', (_q, res) => sendJson(res, 401, { error: 'x', reason: '\u001b[31mred' }));
      const h = harness(env({ SVC_TOKEN: 't' }), root);
      assert.equal(await runCli(['ps', '--url', origin], h.ctx), 1);
      assert.equal(h.err(), 'svc: control plane refused the request: HTTP 401 without a reason\n');
    });

    it('events follows every page with the token on each request', async () => {
      routes.set('/events', (req, res) => {
        const cursor = new URL(req.url ?? '/', origin).searchParams.get('cursor');
        const item = { ts: '2030-01-01T00:00:00.000Z', id: cursor ?? 'e1', agentId: 'a', sourceId: 's', kind: 'k', status: 'ok' };
        sendJson(res, 200, { items: [item], nextCursor: cursor === null ? 'c2' : null });
      });
      const h = harness(env({ SVC_TOKEN: 'paged' }), root);
      assert.equal(await runCli(['events', '--json', '--url', origin], h.ctx), 0, h.err());
      assert.deepEqual(seen.map((s) => s.authorization), ['Bearer paged', 'Bearer paged']);
      assert.equal((JSON.parse(h.out()) as { items: unknown[] }).items.length, 2);
    });

    it('logs -f: on token-expired it gets a fresh token and resumes with Last-Event-ID', async () => {
      const record = (n: number) => JSON.stringify({ agentId: 'a', ts: `2030-01-01T00:00:0${n}.000Z`, level: 'info', event: `e${n}` });
      let connections = 0;
      routes.set('/logs', (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        if (++connections === 1) {
          res.end(`id: pos-1\nevent: log\ndata: ${record(1)}\n\nevent: system\ndata: {"system":"token-expired"}\n\n`);
        } else {
          res.write(`id: pos-2\nevent: log\ndata: ${record(2)}\n\n`); // stays open: -f
        }
      });
      const dir = agentDir('logs', oauth2Client());
      const h = harness(env(), root);
      const done = runCli(['logs', '-f', '--json', '--url', origin, '--dir', dir], h.ctx);
      await waitFor('the second record', () => h.out().includes('"e2"'));
      h.interrupt();
      assert.equal(await done, 0, h.err());
      assert.equal(h.out(), `${record(1)}\n${record(2)}\n`);
      assert.equal(h.err(), '', 'token-expired is handled, not printed');
      assert.equal(tokenRequests.length, 2);
      assert.equal(seen.length, 2);
      assert.match(seen[0]?.authorization ?? '', /^Bearer tok-\d+$/);
      assert.match(seen[1]?.authorization ?? '', /^Bearer tok-\d+$/);
      assert.notEqual(seen[0]?.authorization, seen[1]?.authorization);
      assert.equal(seen[0]?.lastEventId, undefined);
      assert.equal(seen[1]?.lastEventId, 'pos-1');
    });

    it('logs -f with SVC_TOKEN: token-expired ends the command with exit 1', async () => {
      routes.set('/logs', (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        res.end('event: system\ndata: {"system":"token-expired"}\n\n');
      });
      const h = harness(env({ SVC_TOKEN: 'short-lived' }), root);
      assert.equal(await runCli(['logs', '-f', '--url', origin], h.ctx), 1);
      assert.match(h.err(), /token expired, and SVC_TOKEN cannot be renewed/);
      assert.equal(seen.length, 1);
    });

    it('logs: a 401 on connect exits 1 naming the reason', async () => {
      routes.set('/logs', (_q, res) => sendJson(res, 401, { error: 'bad signature', reason: 'bad-signature' }));
      const h = harness(env({ SVC_TOKEN: 'forged' }), root);
      assert.equal(await runCli(['logs', '--url', origin], h.ctx), 1);
      assert.equal(h.err(), 'svc: control plane refused the request: bad-signature\n');
    });

    it('a broken clientSecretRef makes the command exit 2 with a configuration error', async () => {
      const dir = agentDir('ps-missing-secret', oauth2Client('secret:cp/missing'));
      const h = harness(env(), root);
      assert.equal(await runCli(['ps', '--url', origin, '--dir', dir], h.ctx), 2);
      assert.match(h.err(), /configuration error:\n.*controlPlane\.auth\.clientSecretRef: secret "cp\/missing" not found/);
      assert.equal(seen.length, 0);
    });

    it('a token endpoint that refuses the client: exit 1 naming the endpoint and invalid_client, not the secret', async () => {
      const dir = agentDir('bad-client', oauth2Client('env:WRONG_SECRET'));
      const h = harness(env({ WRONG_SECRET: 'not-the-secret-at-all' }), root);
      assert.equal(await runCli(['ps', '--url', origin, '--dir', dir], h.ctx), 1);
      assert.equal(h.err(), `token endpoint ${origin}/token refused the client-credentials grant: invalid_client (HTTP 401): client authentication failed\n`);
      assert.equal(seen.length, 0);
    });
  });
});
