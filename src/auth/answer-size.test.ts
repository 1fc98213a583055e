/**
 * Contract §11.7 / §4.4: a JWKS or discovery answer over 1 MiB is refused WHILE it streams, and a
 * token endpoint's answer over 256 KiB likewise. A loopback IdP streams an endless body; the evidence
 * is on both ends: the server sees its connection closed, and the client read little more than the cap.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { fakeClock } from '../core/clock.js';
import { createClientCredentialsClient, MAX_RESPONSE_BYTES } from './client-credentials.js';
import { createKeySet, KeySetUnavailableError, MAX_DOCUMENT_BYTES } from './key-set.js';
import { createTokenVerifier } from './verify-token.js';
import { waitFor } from '../../test/support/wait.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What one endless answer did: bytes handed to the socket, and whether the client closed it. */
interface Stream { written: number; closed: boolean }

/** An answer that never ends: 64 KiB chunks, written as fast as the client takes them, until it closes. */
function endless(streams: Stream[], headers: Record<string, string> = {}, prefix = '{"keys":[],"pad":"'): Handler {
  return (_req, res) => {
    const s: Stream = { written: 0, closed: false };
    streams.push(s);
    res.on('close', () => { s.closed = true; });
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.write(prefix);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = (): void => {
      while (!s.closed && !res.destroyed) {
        s.written += chunk.length;
        if (!res.write(chunk)) { res.once('drain', pump); return; }
      }
    };
    pump();
  };
}

/** `fetch` that counts the body bytes the caller pulled. */
function countingFetch(): { fetch: typeof fetch; read(): number } {
  let read = 0;
  return {
    read: () => read,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (res.body === null) return res;
      const counted = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) { read += chunk.byteLength; controller.enqueue(chunk); },
      }));
      return new Response(counted, { status: res.status, headers: res.headers });
    },
  };
}

describe('answers over the cap are refused while they stream', () => {
  let server: Server;
  let origin: string;
  let handler: Handler;
  before(async () => {
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** The key set's lookup fails for the reason of the cap; the IdP saw the request aborted; the client read at most the cap and a few chunks. */
  async function refusedKeySet(streams: Stream[], opts: { jwksUri: string | null }): Promise<{ read: number; message: string }> {
    const counting = countingFetch();
    const set = createKeySet({ issuer: origin, jwksUri: opts.jwksUri, clock: fakeClock(1_700_000_000_000), fetch: counting.fetch });
    try {
      const err = await set.getKey({ alg: 'RS256', kid: 'k1' }, { payload: '', signature: '' }).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof KeySetUnavailableError, `got ${String(err)}`);
      await waitFor('the IdP to see its connection closed', () => streams.length === 1 && streams[0]!.closed);
      return { read: counting.read(), message: err.message };
    } finally {
      set.close();
    }
  }

  it('an endless JWKS answer: the request is aborted past 1 MiB (idp-unreachable), the body never quoted', async () => {
    const streams: Stream[] = [];
    handler = endless(streams);
    const { read, message } = await refusedKeySet(streams, { jwksUri: `${origin}/jwks` });
    assert.equal(message, `${origin}/jwks answered more than 1 MiB; the request was aborted`);
    assert.ok(read > MAX_DOCUMENT_BYTES && read <= MAX_DOCUMENT_BYTES + 512 * 1024, `the client read ${read} bytes`);
  });

  it('an endless discovery document is refused the same way', async () => {
    const streams: Stream[] = [];
    handler = endless(streams, {}, '{"issuer":"');
    const { read, message } = await refusedKeySet(streams, { jwksUri: null });
    assert.equal(message, `${origin}/.well-known/openid-configuration answered more than 1 MiB; the request was aborted`);
    assert.ok(read <= MAX_DOCUMENT_BYTES + 512 * 1024, `the client read ${read} bytes`);
  });

  it('a Content-Length over 1 MiB is refused at once, before the body is read', async () => {
    const streams: Stream[] = [];
    handler = endless(streams, { 'content-length': String(300 * 1024 * 1024) });
    const { read, message } = await refusedKeySet(streams, { jwksUri: `${origin}/jwks` });
    assert.equal(message, `${origin}/jwks answered more than 1 MiB; the request was aborted`);
    assert.ok(read < MAX_DOCUMENT_BYTES, `the client read ${read} bytes`);
  });

  it('a token verified against an endless key set: idp-unreachable, the detail names the cap, not the body', async () => {
    const streams: Stream[] = [];
    handler = endless(streams);
    const { privateKey } = await generateKeyPair('RS256');
    const nowS = 1_700_000_000;
    const token = await new SignJWT({ scope: 'control:read' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(origin).setAudience('svc').setIssuedAt(nowS).setExpirationTime(nowS + 300).sign(privateKey);
    const verifier = createTokenVerifier({ provider: 'oidc', issuer: origin, audience: 'svc', jwksUri: `${origin}/jwks`,
      scopes: ['control:read'], allowLoopback: true, client: null }, { clock: fakeClock(nowS * 1000) });
    try {
      const result = await verifier.verify(token);
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.reason, 'idp-unreachable');
      const detail = (!result.ok && result.detail) || '';
      assert.match(detail, /answered more than 1 MiB; the request was aborted/);
      assert.ok(!detail.includes('xxxx'), detail);
      await waitFor('the IdP to see its connection closed', () => streams[0]?.closed === true);
    } finally {
      verifier.close();
    }
  });

  it('an endless token endpoint answer: aborted past 256 KiB', async () => {
    const streams: Stream[] = [];
    handler = endless(streams, {}, '{"access_token":"');
    const counting = countingFetch();
    const cc = createClientCredentialsClient({ tokenEndpoint: `${origin}/token`, clientId: 'cli', clientSecret: 'secret-value',
      clock: fakeClock(0), fetch: counting.fetch });
    await assert.rejects(cc.token(), new RegExp(`^RuntimeError: token endpoint ${origin}/token: the answer is over 256 KiB; the request was aborted$`));
    await waitFor('the token endpoint to see its connection closed', () => streams[0]?.closed === true);
    assert.ok(counting.read() <= MAX_RESPONSE_BYTES + 512 * 1024, `the client read ${counting.read()} bytes`);
  });
});
