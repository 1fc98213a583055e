/**
 * A real OpenID provider (`oidc-provider`) on loopback for the black-box auth tests: the strict
 * client-credentials grant, issuing RFC 9068 `at+jwt` access tokens for the control plane's audience;
 * public code clients (`svc console`) and confidential ones authenticating with `client_secret_basic`
 * (the team console, §24.6). Whoever signs in is `signInAs`'s account (alice by default), with the
 * email `<account>@example.com` in the ID token when the `email` scope is asked.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';

export const AUDIENCE = 'urn:svc:control-plane';
export const SCOPE = 'control:read';

export interface Idp {
  issuer: string;
  tokenEndpoint: string;
  clients: Record<string, string>;
  /** Requests seen, by path. */
  hits: Map<string, number>;
  /** The account the next sign-ins log in as (no login form: logged in and consenting at once). */
  signInAs(accountId: string): void;
  close(): Promise<void>;
}

export interface IdpOptions {
  /** Access-token lifetime (default 600 s). */
  ttlS?: number;
  /** No default resource: a client that does not ask for our audience gets no JWT for it. */
  requireResource?: boolean;
  /**
   * Public clients of the authorization-code flow with PKCE (`svc console`): client id → its one
   * redirect URI. Every sign-in is the account `alice`, logged in and consenting at once (no form).
   */
  codeClients?: Record<string, string>;
  /** The code clients also get a refresh token with every sign-in (and may use the refresh_token grant). */
  refreshTokens?: boolean;
  /** Confidential clients of the authorization-code flow with PKCE and `client_secret_basic` (the team console): client id → secret and redirect. */
  confidentialClients?: Record<string, { secret: string; redirect: string }>;
}

/** Starts the IdP; `clients` maps client ids to secrets (client_secret_basic). */
export async function startIdp(clients: Record<string, string>, opts: IdpOptions = {}): Promise<Idp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', use: 'sig', alg: 'RS256' };
  const hits = new Map<string, number>();
  let handler: ((req: IncomingMessage, res: ServerResponse) => unknown) | null = null;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path.startsWith('/interaction/')) void interact(req, res).catch(() => { res.statusCode = 500; res.end(); });
    else if (handler) void handler(req, res);
    else { res.statusCode = 503; res.end(); }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      ...Object.entries(clients).map(([client_id, client_secret]) => ({
        client_id, client_secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [],
        token_endpoint_auth_method: 'client_secret_basic' as const, scope: SCOPE,
      })),
      ...Object.entries(opts.codeClients ?? {}).map(([client_id, redirect]) => ({
        client_id, grant_types: opts.refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'], redirect_uris: [redirect], response_types: ['code' as const],
        token_endpoint_auth_method: 'none' as const, application_type: 'native' as const, scope: `openid ${SCOPE}`,
      })),
      ...Object.entries(opts.confidentialClients ?? {}).map(([client_id, c]) => ({
        client_id, client_secret: c.secret, grant_types: ['authorization_code'], redirect_uris: [c.redirect], response_types: ['code' as const],
        token_endpoint_auth_method: 'client_secret_basic' as const, scope: 'openid email profile',
      })),
    ],
    // The scopes' claims go into the ID token too: what a relying party that reads only the ID token (the team console) sees.
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
    ...(opts.refreshTokens ? { issueRefreshToken: () => true } : {}),
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, email: `${id}@example.com`, email_verified: true, preferred_username: id }) }),
    jwks: { keys: [jwk] },
    scopes: [SCOPE],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        ...(opts.requireResource ? {} : { defaultResource: () => AUDIENCE }),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== AUDIENCE) throw new errors.InvalidTarget();
          return { scope: SCOPE, audience: AUDIENCE, accessTokenFormat: 'jwt', accessTokenTTL: opts.ttlS ?? 600,
            jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
  });
  handler = provider.callback();
  let account = 'alice';
  // The user interaction, without a form: the account logs in, then consents to what was asked.
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new provider.Grant({ accountId: details.session?.accountId ?? account, clientId: String(details.params.client_id) });
    grant.addOIDCScope(`openid ${SCOPE} ${typeof details.params.scope === 'string' ? details.params.scope : ''}`.trim());
    grant.addResourceScope(AUDIENCE, SCOPE);
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
  return {
    issuer,
    tokenEndpoint: `${issuer}/token`,
    clients,
    hits,
    signInAs: (accountId) => { account = accountId; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A client-credentials access token from the IdP. */
export async function fetchToken(idp: Idp, clientId: string): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(idp.clients[clientId] ?? '')}`).toString('base64');
  const res = await fetch(idp.tokenEndpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE, resource: AUDIENCE }),
  });
  const body = (await res.json()) as { access_token?: string; error?: string };
  if (!body.access_token) throw new Error(`token request failed: ${res.status} ${body.error ?? ''}`);
  return body.access_token;
}

/**
 * A sign-in without a browser: follows the redirects from `start` (a relying party's login URL)
 * through the IdP's interaction and back, keeping each origin's cookies as a browser would (paths
 * aside); returns the cookies of `start`'s origin at the end (`name=value; …`) and where it ended.
 */
export async function signInWithoutBrowser(start: string): Promise<{ cookie: string; landed: string }> {
  const jars = new Map<string, Map<string, string>>();
  const jar = (url: URL): Map<string, string> => {
    let j = jars.get(url.origin);
    if (j === undefined) { j = new Map(); jars.set(url.origin, j); }
    return j;
  };
  let url = new URL(start);
  for (let hop = 0; hop < 20; hop++) {
    const cookie = [...jar(url)].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const set of res.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) {
        const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(set);
        if (expired) jar(url).delete(pair.slice(0, eq).trim());
        else jar(url).set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
    }
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || location === null) {
      return { cookie: [...jar(new URL(start))].map(([k, v]) => `${k}=${v}`).join('; '), landed: url.href };
    }
    url = new URL(location, url);
  }
  throw new Error(`no end to the redirects from ${start}`);
}
