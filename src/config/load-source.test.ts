import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, UsageError } from '../core/errors.js';
import { loadSource } from './load-source.js';

const root = mkdtempSync(join(tmpdir(), 'svc-load-source-'));
after(() => rmSync(root, { recursive: true, force: true }));
const SECRET = 'a'.repeat(32);
function agentDir(sources: string): string {
  const dir = mkdtempSync(join(root, 'agent-'));
  writeFileSync(join(dir, 'event-sources.yaml'), `sources:\n${sources}`);
  return dir;
}
const ctx = { env: {}, home: root };
const webhook = (id: string, port: number): string => `  - { id: ${id}, type: webhook, port: ${port}, secret: ${SECRET} }\n`;
const ack = `  - { id: ack-links, type: ack, port: 8795, secret: ${SECRET} }\n`;

describe('loadSource (svc webhook send)', () => {
  it('takes the only webhook source when the others answer people (an ack source beside it)', () => {
    assert.equal(loadSource(agentDir(webhook('alertmanager', 8787) + ack), undefined, ctx).id, 'alertmanager');
  });

  it('names an ack source given as --source for what it is, and the webhook sources there are', () => {
    assert.throws(() => loadSource(agentDir(webhook('alertmanager', 8787) + ack), 'ack-links', ctx), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.equal(err.message, '--source ack-links: an ack source answers people, it takes no alerts; webhook sources: alertmanager');
      return true;
    });
  });

  it('asks for --source among several webhook sources, naming only them', () => {
    assert.throws(() => loadSource(agentDir(webhook('a', 8787) + webhook('b', 8788) + ack), undefined, ctx),
      (err: unknown) => err instanceof UsageError && /has 2 webhook sources \(a, b\)$/.test(err.message));
  });

  it('says when there is no webhook source at all', () => {
    const slack = `  - { id: clicks, type: slack, port: 8796, signingSecret: ${SECRET} }\n`;
    assert.throws(() => loadSource(agentDir(ack + slack), undefined, ctx),
      (err: unknown) => err instanceof ConfigError && /no webhook source to send to \(its sources: ack-links, clicks\)$/.test(err.message));
  });
});
