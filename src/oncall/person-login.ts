/**
 * Who of oncall.yaml signed in to the team console (contract §24.6): `people[].login` names a person
 * by their email (compared without regard to case, as mail does for the domain and most providers for
 * the whole address) or by their OpenID `sub` (compared exactly). The first agent's person that
 * matches wins; people with no `login` are never matched. Read per request, so a reloaded oncall.yaml
 * applies to the next one.
 */
import type { OncallConfig } from './oncall-config.js';

export interface LoginClaims {
  sub: string;
  email: string | null;
}

export function personForLogin(configs: Iterable<{ config: Pick<OncallConfig, 'people'> }>, claims: LoginClaims): string | null {
  const email = claims.email?.toLowerCase() ?? null;
  for (const { config } of configs) {
    for (const p of config.people) {
      if (p.login === null) continue;
      if (p.login === claims.sub || (email !== null && p.login.includes('@') && p.login.toLowerCase() === email)) return p.id;
    }
  }
  return null;
}
