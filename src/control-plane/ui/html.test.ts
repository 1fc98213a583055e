import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, hrefOf, html } from './html.js';
import { layout } from './layout.js';

describe('console html', () => {
  it('escapes markup, quotes and bidi controls in one place', () => {
    assert.equal(escapeHtml(`<a href="x" onclick='y'>&</a>`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    assert.equal(escapeHtml('invoice\u202Egnp.exe\u2066'), 'invoice&lt;U+202E&gt;gnp.exe&lt;U+2066&gt;');
  });

  it('escapes every interpolation unless it is markup built by html', () => {
    const label = '<script>alert(1)</script>';
    const cell = html`<td title="${label}">${label}</td>`;
    assert.equal(cell.text, '<td title="&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    assert.equal(html`<tr>${[cell, null, false, undefined, 3]}</tr>`.text, `<tr>${cell.text}3</tr>`);
  });

  it('builds query strings with every value encoded and empty ones left out', () => {
    assert.equal(hrefOf('/ui/events', { agent: 'a&b', source: '', kind: null }), '/ui/events?agent=a%26b');
    assert.equal(html`<a href="${hrefOf('/logs', { agent: '"x' })}">`.text, '<a href="/logs?agent=%22x">');
  });

  it('puts a shadow run\'s banner (§22.3) above every view, names escaped; a live daemon has none', () => {
    const page = (shadow: string[]): string => layout({ title: 'Now', section: '/ui/', body: html`<p>x</p>`, shadow });
    assert.match(page(['rehearsal', '<b>']), /<body>\n<a class="skip" href="#main">Skip to content<\/a>\n<p class="shadow-run" role="status"><strong>Shadow run:<\/strong> rehearsal, &lt;b&gt; page nobody\. Every round is recorded; nothing is sent to anyone\.<\/p>\n<header>/);
    assert.doesNotMatch(page([]), /shadow-run/);
  });
});
