import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testPerson } from '../../test/support/oncall-config.js';
import { personForLogin } from './person-login.js';

describe('who of oncall.yaml signed in (§24.6: people[].login, an email or a sub)', () => {
  const configs = [
    { config: { people: [testPerson('alice', { dm: 'a' }, { login: 'Alice@Example.com' }), testPerson('bob', { dm: 'b' }, { login: '248289761001' }),
      testPerson('carol', { dm: 'c' })] } },
    { config: { people: [testPerson('dana', { dm: 'd' }, { login: 'dana@example.com' })] } },
  ];

  it('an email matches whatever its case; a sub matches exactly; across agents', () => {
    assert.equal(personForLogin(configs, { sub: 'x', email: 'alice@example.COM' }), 'alice');
    assert.equal(personForLogin(configs, { sub: '248289761001', email: null }), 'bob');
    assert.equal(personForLogin(configs, { sub: 'y', email: 'dana@example.com' }), 'dana');
  });

  it('nobody for an unknown login, a person without one, or a sub that only differs in case', () => {
    assert.equal(personForLogin(configs, { sub: 'carol', email: 'carol@example.com' }), null);
    assert.equal(personForLogin(configs, { sub: 'zed', email: null }), null);
    assert.equal(personForLogin([{ config: { people: [testPerson('e', { dm: 'e' }, { login: 'AbC' })] } }], { sub: 'abc', email: null }), null);
  });
});
