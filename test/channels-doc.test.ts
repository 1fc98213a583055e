/**
 * docs/channels.md shows what each channel sends for a page (contract §24.1). Every example marked
 * `<!-- rendered: NAME -->` above its fence is what test/support/channel-examples.ts renders from one
 * fixture page through the channel's own code: JSON equal as data (the doc may wrap it), text equal
 * exactly, where `…` in a text example stands for a token too long to show. So the docs cannot drift
 * from the wire again.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { channelExamples } from './support/channel-examples.js';

const DOC = readFileSync(fileURLToPath(new URL('../docs/channels.md', import.meta.url)), 'utf8');

interface Example { lang: string; text: string }

/** The marked examples of the doc, by name. */
function marked(doc: string): Map<string, Example> {
  const out = new Map<string, Example>();
  for (const m of doc.matchAll(/^<!-- rendered: ([a-z-]+) -->\n```([a-z]*)\n([\s\S]*?)\n```$/gm)) {
    const [, name = '', lang = '', text = ''] = m;
    assert.ok(!out.has(name), `docs/channels.md marks ${name} twice`);
    out.set(name, { lang, text });
  }
  return out;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function assertShows(name: string, example: Example, rendered: string): void {
  if (example.lang === 'json') {
    assert.deepEqual(JSON.parse(example.text), JSON.parse(rendered), `docs/channels.md ${name}: as data`);
    return;
  }
  if (!example.text.includes('…')) {
    assert.equal(example.text, rendered, `docs/channels.md ${name}`);
    return;
  }
  const pattern = new RegExp(`^${example.text.split('…').map(escapeRegex).join('[^\\s"&<>]*?')}$`);
  assert.match(rendered, pattern, `docs/channels.md ${name} (… stands for a token)`);
}

describe('docs/channels.md: every example is the real rendering (§24.1)', () => {
  it('each marked example equals what the channel sends for the fixture page, and every channel has its example', async () => {
    const examples = marked(DOC);
    const emailHeaders = (examples.get('email')?.text ?? '').split('\n\n')[0]?.split('\n').map((l) => l.slice(0, l.indexOf(':'))) ?? [];
    const rendered = await channelExamples(emailHeaders);
    assert.deepEqual([...examples.keys()].sort(), [...rendered.keys()].sort(), 'the marked examples are the rendered ones');
    for (const [name, example] of examples) assertShows(name, example, rendered.get(name) ?? '');
  });

  it('a stale example fails: the check is not blind', () => {
    const stale = marked('<!-- rendered: x -->\n```json\n{"text":"[P1] HighLatency on api-1"}\n```\n<!-- rendered: y -->\n```\nPage … opened.\n```');
    assert.throws(() => assertShows('x', stale.get('x') ?? { lang: '', text: '' }, '{"text":"[P1] CheckoutErrors on api-1"}'));
    assert.throws(() => assertShows('y', stale.get('y') ?? { lang: '', text: '' }, 'Page p7xq2m4k9a was acknowledged.'));
    assertShows('y', stale.get('y') ?? { lang: '', text: '' }, 'Page p7xq2m4k9a opened.');
  });
});
