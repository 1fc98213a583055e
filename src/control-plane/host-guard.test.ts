import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isLoopbackBind } from '../core/loopback.js';
import { classifyHost, hostValues } from './host-guard.js';

describe('classifyHost', () => {
  const table: Array<[string[], string]> = [
    [['127.0.0.1'], 'loopback'],
    [['127.0.0.1:9464'], 'loopback'],
    [['localhost'], 'loopback'],
    [['LOCALHOST:80'], 'loopback'],
    [['[::1]'], 'loopback'],
    [['[::1]:9464'], 'loopback'],
    [['evil.com'], 'remote'],
    [['localhost.evil.com'], 'remote'],
    [['localhost@evil.com'], 'remote'],
    [['127.0.0.1.evil.com'], 'remote'],
    [['127.0.0.2'], 'remote'],
    [['::1'], 'remote'],
    [['localhost:99999'], 'remote'],
    [['localhost:'], 'remote'],
    [[''], 'remote'],
    [[], 'remote'],
    [['localhost', 'localhost'], 'ambiguous'],
    [['localhost', 'evil.com'], 'ambiguous'],
  ];
  for (const [values, expected] of table) {
    it(`${JSON.stringify(values)} → ${expected}`, () => assert.equal(classifyHost(values), expected));
  }
});

describe('hostValues', () => {
  it('collects every Host header, case-insensitively', () => {
    assert.deepEqual(hostValues(['Host', 'a', 'Accept', '*/*', 'host', 'b']), ['a', 'b']);
  });
});

describe('isLoopbackBind', () => {
  it('accepts loopback addresses only', () => {
    assert.equal(isLoopbackBind('127.0.0.1'), true);
    assert.equal(isLoopbackBind('127.1.2.3'), true);
    assert.equal(isLoopbackBind('::1'), true);
    assert.equal(isLoopbackBind('localhost'), true);
    assert.equal(isLoopbackBind('0.0.0.0'), false);
    assert.equal(isLoopbackBind('::'), false);
    assert.equal(isLoopbackBind('10.0.0.1'), false);
  });
});
