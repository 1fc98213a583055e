/** Pieces the console's views share: a scrollable table, a filter form, the pager, a time cell. */
import type { Html, HtmlValue } from '../html.js';
import { auditSentence } from '../../../audit/audit-sentence.js';
import { hrefOf, html } from '../html.js';

/**
 * A table in a region that scrolls on its own on a narrow screen (focusable, so a keyboard can scroll
 * it too). Column headers are `th scope="col"`; a row's first cell may be a `th scope="row"`.
 */
export function table(label: string, columns: readonly string[], rows: readonly Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="note">${empty}</p>`;
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table>
<caption class="skip">${label}</caption>
<thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
}

export interface FilterField {
  name: string;
  label: string;
  value: string | undefined;
  /** A select with these options (a value, or a value and what it shows; '' shows "any") instead of a text box. */
  options?: ReadonlyArray<string | { value: string; label: string }>;
}

/** A GET form over the view's own path: every field labelled; empty fields are ignored by the view. */
export function filterForm(path: string, label: string, fields: readonly FilterField[], hidden: Record<string, string> = {}): Html {
  return html`<form class="filters" method="get" action="${path}" aria-label="${label}">
${fields.map((f) => html`<label for="f-${f.name}">${f.label}
${f.options
    ? html`<select id="f-${f.name}" name="${f.name}">${f.options.map((given) => {
      const o = typeof given === 'string' ? { value: given, label: given === '' ? 'any' : given } : given;
      return html`<option value="${o.value}"${o.value === (f.value ?? '') ? html` selected` : ''}>${o.label}</option>`;
    })}</select>`
    : html`<input id="f-${f.name}" name="${f.name}" value="${f.value ?? ''}" autocomplete="off" spellcheck="false">`}
</label>`)}
${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<button type="submit">Apply</button>
<a href="${path}">Clear</a>
</form>`;
}

/** "First page" and "Next page" links: keyset pages, so there is no page count and no last page. */
export function pager(path: string, params: Record<string, string | undefined>, nextCursor: string | null, onFirstPage: boolean): Html {
  const { cursor: _cursor, ...rest } = params;
  const links: HtmlValue[] = [];
  if (!onFirstPage) links.push(html`<a href="${hrefOf(path, rest)}">First page</a>`);
  if (nextCursor !== null) links.push(html`<a href="${hrefOf(path, { ...rest, cursor: nextCursor })}" rel="next">Next page</a>`);
  if (links.length === 0) return html``;
  return html`<nav class="pager" aria-label="Pages">${links}</nav>`;
}

/** A time as the operator reads it, with the exact value for machines. */
export function timeCell(ts: string | null): Html {
  if (ts === null) return html`<td>—</td>`;
  return html`<td class="mono"><time datetime="${ts}">${ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time></td>`;
}

/** A banner of an outcome: `role="status"` for good news, `role="alert"` for bad. */
export function banner(ok: boolean, text: HtmlValue): Html {
  return html`<p class="banner ${ok ? 'ok' : 'bad'}" role="${ok ? 'status' : 'alert'}">${text}</p>`;
}

export interface ActionField {
  name: string;
  label: string;
  /** A select with these options (a value, or a value and what it shows), a multi-line box, or (default) a text box. */
  options?: ReadonlyArray<string | { value: string; label: string }>;
  multiline?: boolean;
  placeholder?: string;
  /** The id of an element that says how to fill it in (`aria-describedby`). */
  describedBy?: string;
}

/**
 * A POST form to the proxy (`svc console`): the session's CSRF token, fixed hidden fields, every field
 * labelled and required. `id` makes the fields' ids unique on the page.
 */
export function actionForm(id: string, action: string, label: string, csrf: string, hidden: Record<string, string>,
  fields: readonly ActionField[], submit: string): Html {
  return html`<form class="act" method="post" action="${action}" aria-label="${label}">
<input type="hidden" name="csrf" value="${csrf}">${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
${fields.map((f) => html`<label for="${id}-${f.name}">${f.label}
${f.options
    ? html`<select id="${id}-${f.name}" name="${f.name}"${f.options.some((o) => typeof o !== 'string' && o.value === '') ? '' : ' required'}>${
      f.options.map((o) => (typeof o === 'string'
      ? html`<option value="${o}">${o}</option>` : html`<option value="${o.value}">${o.label}</option>`))}</select>`
    : f.multiline === true
      ? html`<textarea id="${id}-${f.name}" name="${f.name}" rows="2" required spellcheck="false" placeholder="${f.placeholder ?? ''}"></textarea>`
      : html`<input id="${id}-${f.name}" name="${f.name}" required autocomplete="off" spellcheck="false" placeholder="${f.placeholder ?? ''}"${
        f.describedBy === undefined ? '' : html` aria-describedby="${f.describedBy}"`}>`}
</label>`)}
<button type="submit">${submit}</button>
</form>`;
}

/** The banner of an action's outcome, from the proxy's redirect (`?done=KEY` or `?failed=TEXT`). */
export function outcomeBanner(url: URL, outcomes: Readonly<Record<string, string>>): Html | '' {
  const failed = url.searchParams.get('failed');
  if (failed !== null) return banner(false, `Not done: ${failed.slice(0, 500)}`);
  const done = url.searchParams.get('done');
  return done !== null && outcomes[done] !== undefined ? banner(true, outcomes[done]) : '';
}

/**
 * What an audit row says, as the sentence `svc explain` prints (audit-sentence.ts), with the row's raw
 * data one click away in a <details> element. Unreadable data is said so.
 */
export function auditWhatCell(kind: string, actor: string, dataText: string | null): Html {
  if (dataText === null) return html`<td class="wrap">${kind} by ${actor} (data unreadable)</td>`;
  let data: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(dataText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
  } catch {
    data = null;
  }
  return html`<td class="wrap">${auditSentence(kind, actor, data)}<details><summary>Data</summary><pre>${dataText}</pre></details></td>`;
}
