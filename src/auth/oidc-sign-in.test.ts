/**
 * `svc console`'s OIDC sign-in reads the IdP through the one capped reader (issue 19: one bounded
 * reader for every client the CLI runs): a discovery document past 1 MiB is refused, and an IdP that
 * streams without end has its connection closed, while a real IdP (oidc-provider) still signs in.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { startIdp } from '../../test/support/idp.js';
import { MAX_DOCUMENT_BYTES } from './key-set.js';
import { createOidcSignIn } from './oidc-sign-in.js';

const settings = (issuer: string) => ({ issuer, clientId: 'svc-console', clientSecret: null, resource: 'urn:svc:control-plane', scopes: ['control:read'],
  redirectUri: 'http://127.0.0.1:9/callback' });

/** A loopback "IdP" whose discovery answer is `body(issuer)` (then the end), or an endless stream when `body` is null. */
async function hostileIdp(body: ((issuer: string) => string) | null):
  Promise<{ issuer: string; sent(): number; closed: Promise<void>; close(): Promise<void> }> {
  let sent = 0;
  let issuer = '';
  let markClosed = (): void => undefined;
  const closed = new Promise<void>((resolve) => { markClosed = resolve; });
  const server = createServer((req, res) => {
    res.on('close', markClosed);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (body !== null) {
      const text = body(issuer);
      sent += Buffer.byteLength(text);
      res.end(text);
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', () => { sent += chunk.length; pump(); });
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, sent: () => sent, closed, close: () => { server.closeAllConnections(); return new Promise((r) => server.close(() => r())); } };
}

describe('OIDC sign-in reads the IdP with a cap', () => {
  const closers: Array<() => Promise<void>> = [];
  after(async () => { for (const c of closers) await c(); });

  it('a real IdP: discovery through the capped fetch, the authorization URL with PKCE and the resource', async () => {
    const idp = await startIdp({}, { codeClients: { 'svc-console': 'http://127.0.0.1:9/callback' } });
    closers.push(() => idp.close());
    const { url } = await createOidcSignIn(settings(idp.issuer)).start();
    const u = new URL(url);
    assert.equal(u.origin, idp.issuer);
    assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(u.searchParams.get('resource'), 'urn:svc:control-plane');
  });

  it('a discovery document past 1 MiB is refused, however well-formed', async () => {
    const big = await hostileIdp((issuer) => JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`,
      padding: 'x'.repeat(MAX_DOCUMENT_BYTES) }));
    closers.push(() => big.close());
    await assert.rejects(createOidcSignIn(settings(big.issuer)).start(), (err: unknown) => {
      const text = `${String((err as Error).message)} ${String(((err as Error).cause as Error | undefined)?.message)}`;
      assert.match(text, new RegExp(`over ${MAX_DOCUMENT_BYTES} bytes`));
      return true;
    });
  });

  it('an IdP that streams without end: refused, its connection closed', { timeout: 120_000 }, async (t) => {
    const idp = await hostileIdp(null);
    closers.push(() => idp.close());
    await assert.rejects(createOidcSignIn(settings(idp.issuer)).start(), (err: unknown) => {
      const text = `${String((err as Error).message)} ${String(((err as Error).cause as Error | undefined)?.message)}`;
      assert.match(text, new RegExp(`over ${MAX_DOCUMENT_BYTES} bytes`));
      return true;
    });
    await idp.closed;
    t.diagnostic(`the IdP wrote ${(idp.sent() / 1024 / 1024).toFixed(1)} MiB before its connection was closed`);
  });
});
