/**
 * The price of control-plane authentication: GET /status through createControlPlane with the auth
 * guard (RS256 bearer token, keys from a loopback JWKS endpoint, allowLoopback: false so every request
 * is verified) against the same listener and route without a guard — measured in the same run, with
 * the same client sending the same headers. Plus raw jose `jwtVerify` ops/s with the key in hand, and
 * the verifier's own ops/s (structure precheck + key-set lookup + jwtVerify + time and scope checks),
 * both on the main thread.
 *
 * Client: keep-alive `http.Agent` in a worker thread, `concurrency` requests in flight, rounds
 * interleaved; the best round of each side counts.
 *
 *   node --import tsx bench/auth-status.ts
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { createAuthGuard } from '../src/control-plane/auth-guard.js';
import { ALLOWED_ALGORITHMS, CLOCK_SKEW_S, createTokenVerifier } from '../src/auth/verify-token.js';
import type { AuthSettings } from '../src/config/control-plane.js';
import { systemClock } from '../src/core/clock.js';
import { sendJson } from '../src/control-plane/http-json.js';
import type { RouteHandler } from '../src/control-plane/route.js';
import { createControlPlane } from '../src/control-plane/server.js';
import { loadGet } from './load-client.js';
import type { AuthGuard, ControlPlane } from '../src/control-plane/server.js';

const COUNT = 10_000;
const WARMUP = 2_000;
const CONCURRENCY = 32;
const ROUNDS = 3;
const VERIFY_MS = 1_500;
const AUDIENCE = 'urn:svc:control-plane';

/** Operations per second of `op`, run back to back for about `ms`. */
async function opsPerSecond(op: () => Promise<unknown>, ms: number): Promise<number> {
  for (let i = 0; i < 200; i++) await op();
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 100; i++) await op();
    n += 100;
    elapsed = performance.now() - start;
  }
  return (n / elapsed) * 1000;
}

// The IdP: one RS256 key behind a loopback JWKS endpoint.
const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
let jwksFetches = 0;
const idp: Server = createServer((_req, res) => {
  jwksFetches += 1;
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
});
await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', () => resolve()));
const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;

const settings: AuthSettings = {
  provider: 'oidc', issuer, audience: AUDIENCE, jwksUri: `${issuer}/jwks`, scopes: ['control:read'], allowLoopback: false, client: null,
};
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ scope: 'control:read', sub: 'bench' })
  .setProtectedHeader({ alg: 'RS256', kid: 'bench-1', typ: 'at+jwt' })
  .setIssuer(issuer).setAudience(AUDIENCE).setIssuedAt(now).setExpirationTime(now + 3600).sign(privateKey);

// A /status-sized answer (the live snapshot's shape, fixed values), the same route on both sides.
const snapshot = {
  version: 1, pid: process.pid, startedAt: new Date().toISOString(), uptimeSeconds: 1,
  agents: [{ id: 'oncall-escalator', state: 'running', provider: 'rules',
    sources: [{ id: 'alertmanager', type: 'webhook', summary: 'POST http://127.0.0.1:8787/webhooks/alertmanager', received: 1, processed: 1, dlq: 0, inflight: 0 }],
    channels: [{ id: 'oncall-dm', type: 'file', direction: 'outbound', ready: true }], mcpServers: [] }],
  controlPlane: { bind: '127.0.0.1', port: 9464, auth: { enabled: true, provider: 'oidc' } }, store: { kind: 'sqlite' },
};
const status: RouteHandler = ({ req, res }) => {
  sendJson(req, res, 200, snapshot);
  return Promise.resolve();
};

const verifier = createTokenVerifier(settings, { clock: systemClock });
async function plane(guard: AuthGuard | null): Promise<ControlPlane> {
  const cp = createControlPlane({ bind: '127.0.0.1', port: 0, allowRemote: false, routes: new Map([['/status', status]]), guard, report: () => undefined, clock: systemClock, maxConnections: 128 });
  await cp.start();
  return cp;
}
const authed = await plane(createAuthGuard(settings, verifier, { clock: systemClock }));
const bare = await plane(null);
const headers = { authorization: `Bearer ${token}` };

try {
  await loadGet({ port: bare.port(), path: '/status', count: WARMUP, concurrency: CONCURRENCY, headers });
  await loadGet({ port: authed.port(), path: '/status', count: WARMUP, concurrency: CONCURRENCY, headers });
  let bareRps = 0;
  let authRps = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const b = await loadGet({ port: bare.port(), path: '/status', count: COUNT, concurrency: CONCURRENCY, headers });
    const a = await loadGet({ port: authed.port(), path: '/status', count: COUNT, concurrency: CONCURRENCY, headers });
    if (b.bad > 0 || a.bad > 0) throw new Error(`non-200 answers: bare ${b.bad}, authenticated ${a.bad}`);
    bareRps = Math.max(bareRps, b.rps);
    authRps = Math.max(authRps, a.rps);
  }

  const options = { algorithms: [...ALLOWED_ALGORITHMS], issuer, audience: AUDIENCE, clockTolerance: CLOCK_SKEW_S };
  const joseOps = await opsPerSecond(() => jwtVerify(token, publicKey, options), VERIFY_MS);
  const verifierOps = await opsPerSecond(async () => {
    const r = await verifier.verify(token);
    if (!r.ok) throw new Error(`verifier refused the bench token: ${r.reason}`);
  }, VERIFY_MS);

  const r3 = (v: number): number => Math.round(v * 1000) / 1000;
  const result = {
    bench: 'auth-status', alg: 'RS256', count: COUNT, concurrency: CONCURRENCY, rounds: ROUNDS,
    bareRps: Math.round(bareRps), authRps: Math.round(authRps), ratio: r3(authRps / bareRps),
    joseVerifyOps: Math.round(joseOps), verifierOps: Math.round(verifierOps), verifierVsJose: r3(verifierOps / joseOps),
    jwksFetches,
  };
  console.log(JSON.stringify(result));
  console.log(`auth on /status: ${result.authRps} req/s with an RS256 bearer token vs ${result.bareRps} req/s without a guard `
    + `= ${result.ratio}x; raw jose jwtVerify ${result.joseVerifyOps} ops/s, the verifier ${result.verifierOps} ops/s `
    + `= ${result.verifierVsJose}x of raw; ${jwksFetches} key-set fetch(es)`);
} finally {
  await authed.close();
  await bare.close();
  verifier.close();
  idp.closeAllConnections();
  await new Promise((resolve) => idp.close(resolve));
}
