import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { LoadedAgent } from './schema.js';
import { bindHostProblems } from './bind-hosts.js';

const agent = (binds: string[]): LoadedAgent => ({
  dir: '/srv/a', agent: { id: 'a1' }, channels: [], skills: [],
  sources: binds.map((bind, i) => ({ id: `s${i}`, bind })),
} as unknown as LoadedAgent);
const cp = (bind: string, enabled = true): ControlPlaneSettings =>
  ({ bind, enabled, port: 9000, maxConnections: 1, auth: null, allowRemote: false, publicUrl: null });

describe('bindHostProblems', () => {
  const looked: string[] = [];
  const lookup = (host: string): Promise<unknown> => {
    looked.push(host);
    return host === 'ok.example' ? Promise.resolve({ address: '10.0.0.1' })
      : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
  };

  it('names the file, key and owner of a bind that does not resolve, never the name; IP literals are not looked up', async () => {
    looked.length = 0;
    const problems = await bindHostProblems([agent(['127.0.0.1', 'secret.invalid', 'ok.example', 'secret.invalid'])], cp('::1'), lookup);
    assert.deepEqual(problems, [
      '/srv/a/event-sources.yaml: sources.1.bind (source s1 of agent a1): does not resolve as a host (ENOTFOUND); give an IP address or a name this machine resolves',
      '/srv/a/event-sources.yaml: sources.3.bind (source s3 of agent a1): does not resolve as a host (ENOTFOUND); give an IP address or a name this machine resolves',
    ]);
    assert.deepEqual(looked, ['secret.invalid', 'ok.example'], 'each name looked up once');
  });

  it('checks the control plane\'s bind when it listens', async () => {
    assert.deepEqual(await bindHostProblems([], cp('secret.invalid'), lookup),
      ['controlPlane.bind: does not resolve as a host (ENOTFOUND); give an IP address or a name this machine resolves']);
    assert.deepEqual(await bindHostProblems([], cp('secret.invalid', false), lookup), []);
  });

  it('checks the team console\'s bind (§24.6)', async () => {
    const withConsole = { ...agent([]), agent: { id: 'a1', console: { bind: 'secret.invalid', port: 9470 } } } as unknown as LoadedAgent;
    assert.deepEqual(await bindHostProblems([withConsole], cp('127.0.0.1'), lookup),
      ['console.bind: does not resolve as a host (ENOTFOUND); give an IP address or a name this machine resolves']);
  });

  it('an error without a plain code is "lookup failed": its text might echo the name', async () => {
    const problems = await bindHostProblems([agent(['x.invalid'])], cp('127.0.0.1'), () => Promise.reject(new Error('x.invalid: no')));
    assert.match(problems[0] ?? '', /\(lookup failed\)/);
    assert.doesNotMatch(problems[0] ?? '', /x\.invalid/);
  });
});
