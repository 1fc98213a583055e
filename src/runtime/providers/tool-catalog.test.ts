import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createToolCatalog, globMatch, offeredToolName } from './tool-catalog.js';

const source = (id: string, names: string[]) => ({ id, tools: () => names.map((name) => ({ name, description: `about ${name}`,
  inputSchema: name === 'weird' ? { type: 'string' } : { type: 'object', properties: {} } })) });

describe('tool catalog', () => {
  it('names MCP tools <serverId>__<toolName>, characters outside [A-Za-z0-9_-] replaced, at most 64 characters', () => {
    assert.equal(offeredToolName('runbooks', 'lookup_runbook'), 'runbooks__lookup_runbook');
    assert.equal(offeredToolName('git.hub', 'repos/list files'), 'git_hub__repos_list_files');
    assert.equal(offeredToolName('a', 'x'.repeat(100)).length, 64);
  });

  it('matches globs on the whole name, * and ? only', () => {
    assert.equal(globMatch('runbooks__*', 'runbooks__lookup'), true);
    assert.equal(globMatch('runbooks__*', 'other__runbooks__lookup'), false);
    assert.equal(globMatch('*__lookup_?', 'a__lookup_1'), true);
    assert.equal(globMatch('a.b', 'axb'), false, 'a dot is literal');
  });

  it('lists the tools of every server, filtered by the allowlist, first of a duplicate name kept', () => {
    const catalog = createToolCatalog([source('runbooks', ['lookup', 'weird', 'look.up']), source('pager', ['page'])], ['runbooks__*']);
    const listed = catalog.list();
    assert.deepEqual(listed.map((t) => [t.name, t.serverId, t.tool]), [['runbooks__lookup', 'runbooks', 'lookup'],
      ['runbooks__weird', 'runbooks', 'weird'], ['runbooks__look_up', 'runbooks', 'look.up']]);
    // A schema that is not an object schema is replaced by an empty object schema (both vendors require one).
    assert.deepEqual(listed[1]?.spec.inputSchema, { type: 'object', properties: {} });
    const clash = createToolCatalog([source('a', ['x.y', 'x_y'])], undefined).list();
    assert.deepEqual(clash.map((t) => t.tool), ['x.y']);
    assert.equal(createToolCatalog([source('submit', ['triage'])], undefined).list()[0]?.name, 'submit__triage');
  });
});
