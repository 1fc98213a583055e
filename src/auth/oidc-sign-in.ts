/**
 * Signs the operator in for `svc console` when the control plane requires tokens (contract §19.3):
 * OpenID Connect authorization code with PKCE (S256), a public client (`controlPlane.auth.console.
 * clientId`), redirect `http://127.0.0.1:<port>/callback`, the control plane's audience asked as the
 * token's resource (RFC 8707). `openid-client` does the protocol (discovery, state, code exchange, ID
 * token validation). Tokens stay in the proxy's memory; nothing is written anywhere.
 */
import * as oidc from 'openid-client';
import { MAX_RESPONSE_BYTES } from '../../auth/client-credentials.js';
import { MAX_DOCUMENT_BYTES } from '../../auth/key-set.js';
import { isLoopbackBind } from '../../core/loopback.js';
import { readBodyText } from '../../core/read-body.js';
import type { PendingSignIn } from './console-sessions.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  audience: string;
  scopes: readonly string[];
  redirectUri: string;
}

export interface SignedIn {
  accessToken: string;
  expiresAtMs: number | null;
  /** For a new access token without the browser, when the IdP gave one; in memory only. */
  refreshToken: string | null;
  /** `user:<preferred_username | email | sub>` as the audit chain names the operator. */
  identity: string;
}

export interface OidcSignIn {
  /** Where to send the browser, and what the callback must match. */
  start(): Promise<{ url: string; pending: PendingSignIn }>;
  /** Exchanges the callback's code (state and PKCE checked) for tokens. */
  finish(callbackUrl: URL, pending: PendingSignIn, nowMs: number): Promise<SignedIn>;
  /** A new access token for a refresh token (the identity is the sign-in's: a refresh may carry no ID token). */
  refresh(refreshToken: string, nowMs: number): Promise<Omit<SignedIn, 'identity'>>;
}

/** Visible ASCII only, at most 190 characters: an identity fits the admin socket's actor. */
function identityOf(claims: Record<string, unknown> | undefined): string {
  const pick = [claims?.preferred_username, claims?.email, claims?.sub].find((v) => typeof v === 'string' && v !== '') as string | undefined;
  const clean = (pick ?? 'unknown').replace(/[^\x21-\x7e]/g, '?').slice(0, 190);
  return `user:${clean}`;
}

function held(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, nowMs: number, previousRefresh: string | null):
  Omit<SignedIn, 'identity'> {
  const expiresIn = tokens.expiresIn();
  return {
    accessToken: tokens.access_token,
    expiresAtMs: expiresIn === undefined ? null : nowMs + expiresIn * 1000,
    refreshToken: tokens.refresh_token ?? previousRefresh,
  };
}

/** Statuses a Response may not carry a body with. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * The fetch `openid-client` uses for every request to the IdP: each answer is read through the one
 * capped reader (contract §11.7), the daemon's caps — a discovery document or key set (GET) 1 MiB, a
 * token endpoint's answer (POST) 256 KiB — and handed on whole. openid-client reads answers without
 * a bound of its own: an IdP streaming without end grew the CLI's memory until it gave up.
 */
const cappedFetch: oidc.CustomFetch = async (url, options) => {
  const own = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal;
  const res = await fetch(url, { ...options, signal });
  const text = await readBodyText(res, options.method === 'GET' ? MAX_DOCUMENT_BYTES : MAX_RESPONSE_BYTES, () => own.abort());
  return new Response(NULL_BODY_STATUSES.has(res.status) ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
};

export function createOidcSignIn(settings: OidcSettings): OidcSignIn {
  let config: Promise<oidc.Configuration> | null = null;
  const issuer = new URL(settings.issuer);
  // Plain HTTP only to an IdP on this machine (a test or a local IdP); anything else must be HTTPS.
  const insecureOk = issuer.protocol === 'http:' && isLoopbackBind(issuer.hostname.replace(/^\[|\]$/g, ''));
  const configuration = (): Promise<oidc.Configuration> => {
    config ??= oidc.discovery(issuer, settings.clientId, undefined, oidc.None(),
      { [oidc.customFetch]: cappedFetch, ...(insecureOk ? { execute: [oidc.allowInsecureRequests] } : {}) })
      .then((c) => {
        // Discovery's own request went through it; so do the token endpoint and the key set later.
        c[oidc.customFetch] = cappedFetch;
        return c;
      })
      .catch((err: unknown) => { config = null; throw err; });
    return config;
  };
  const scope = ['openid', ...settings.scopes].join(' ');
  return {
    async start() {
      const c = await configuration();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(c, {
        redirect_uri: settings.redirectUri, scope, state, resource: settings.audience,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
      });
      return { url: url.href, pending: { state, codeVerifier } };
    },
    async finish(callbackUrl, pending, nowMs) {
      const c = await configuration();
      const tokens = await oidc.authorizationCodeGrant(c, callbackUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state },
        { resource: settings.audience });
      return { ...held(tokens, nowMs, null), identity: identityOf(tokens.claims()) };
    },
    async refresh(refreshToken, nowMs) {
      const c = await configuration();
      // The IdP may rotate the refresh token; when it does not, the one we had stays good.
      return held(await oidc.refreshTokenGrant(c, refreshToken, { resource: settings.audience }), nowMs, refreshToken);
    },
  };
}
