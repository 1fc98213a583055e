/** Pieces the console's views share: a scrollable table, a filter form, the pager, a time cell. */
import type { Html, HtmlValue } from '../html.js';
import { auditSentence } from '../../../audit/audit-sentence.js';
import { hrefOf, html } from '../html.js';

/**
 * A table in a region that scrolls on its own on a narrow screen (focusable, so a keyboard can scroll
 * it too). Column headers are `th scope="col"`; a row's first cell may be a `th scope="row"`. With
 * `cards`, each row becomes a card on a phone instead (its cells labelled by `data-label`): what must
 * not be scrolled away — a page's or an event's title — stays in view (§24.8).
 */
export function table(label: string, columns: readonly string[], rows: readonly Html[], empty: string, opts: { cards?: boolean } = {}): Html {
  if (rows.length === 0) return html`<p class="note">${empty}</p>`;
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table${opts.cards === true ? html` class="cards"` : ''}>
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

/**
 * A time as a person reads it (contract §24.5): the UTC instant in `datetime`, shown as UTC
 * (`2026-11-25 17:00Z`, seconds when there are some) until the console's script shows it in the
 * browser's zone with its offset. `ts` is ISO-8601 or milliseconds.
 */
export function timeText(ts: string | number | null): Html {
  if (ts === null) return html`—`;
  const iso = typeof ts === 'number' ? new Date(ts).toISOString() : ts;
  const shown = iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/:00Z$/, 'Z');
  return html`<time datetime="${iso}">${shown}</time>`;
}

/** A table cell of timeText. */
export function timeCell(ts: string | number | null): Html {
  if (ts === null) return html`<td>—</td>`;
  return html`<td class="mono">${timeText(ts)}</td>`;
}

/** A URL that may be a link: http or https only (a `javascript:` or `data:` URL from a label stays text). */
export const LINKABLE = /^https?:\/\/[^\s"<>]{1,2000}$/;

/** `url` as a link when it is http(s), else as text (§24.8: runbook and source links are links). */
export function linkOrText(url: string): Html {
  return LINKABLE.test(url) ? html`<a href="${url}" rel="noreferrer" class="wrap">${url}</a>` : html`<span class="wrap">${url}</span>`;
}

/**
 * A page's fact lines (runbook, source and Alertmanager links, oncall/page.ts `facts`) as a list whose
 * `Label: URL` lines are links.
 */
export function factList(lines: readonly string[]): Html {
  if (lines.length === 0) return html``;
  return html`<ul class="facts-list">${lines.map((line) => {
    const m = /^(\s*)(?:- )?([^:]{1,40}): (\S+)$/.exec(line);
    return m !== null && LINKABLE.test(m[3] ?? '')
      ? html`<li${(m[1] ?? '') === '' ? '' : html` class="sub"`}>${m[2]}: ${linkOrText(m[3] ?? '')}</li>`
      : html`<li class="wrap">${line.trim()}</li>`;
  })}</ul>`;
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
  /** What the box holds when the page opens (the refused form's value wins). */
  value?: string;
}

/** Where "Acting as" posts (the proxy's or the team console's session; `svc console` without --as). */
export const ACTING_AS_ACTION = '/actions/acting-as';
/** The query of a refused form: the error, which form, and what was typed in it (never the CSRF token). */
const TYPED = 'typed.';

/** `failed=…&form=ID&typed.NAME=…`: how the consoles send a refused form back to its view (§24.8: it keeps what was typed). */
export function refusedQuery(formId: string, error: string, values: Readonly<Record<string, string>>): string {
  const q = new URLSearchParams({ failed: error.slice(0, 500) });
  if (/^[A-Za-z0-9._-]{1,140}$/.test(formId)) {
    q.set('form', formId);
    for (const [k, v] of Object.entries(values)) q.set(`${TYPED}${k}`, v);
  }
  return q.toString();
}

/** The values typed into form `formId` before it was refused, or {} when this answer is not that form's. */
export function typedValues(url: URL, formId: string): Record<string, string> {
  if (url.searchParams.get('form') !== formId || url.searchParams.get('failed') === null) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (k.startsWith(TYPED)) out[k.slice(TYPED.length)] = v.slice(0, 2000);
  return out;
}

/**
 * A POST form to the console's own listener (the proxy, or the team console): the session's CSRF
 * token, its own id (`form`, so a refusal can bring its values back), fixed hidden fields, every field
 * labelled and required; `typed` fills the fields with what was typed before a refusal.
 */
export function actionForm(id: string, action: string, label: string, csrf: string, hidden: Record<string, string>,
  fields: readonly ActionField[], submit: string, typed: Readonly<Record<string, string>> = {}): Html {
  const valueOf = (f: ActionField): string => typed[f.name] ?? f.value ?? '';
  return html`<form class="act" method="post" action="${action}" aria-label="${label}">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="form" value="${id}">${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
${fields.map((f) => html`<label for="${id}-${f.name}">${f.label}
${f.options
    ? html`<select id="${id}-${f.name}" name="${f.name}"${f.options.some((o) => typeof o !== 'string' && o.value === '') ? '' : ' required'}>${
      f.options.map((o) => {
        const { value, label: shown } = typeof o === 'string' ? { value: o, label: o } : o;
        return html`<option value="${value}"${value === valueOf(f) ? html` selected` : ''}>${shown}</option>`;
      })}</select>`
    : f.multiline === true
      ? html`<textarea id="${id}-${f.name}" name="${f.name}" rows="2" required spellcheck="false" placeholder="${f.placeholder ?? ''}">${valueOf(f)}</textarea>`
      : html`<input id="${id}-${f.name}" name="${f.name}" required autocomplete="off" spellcheck="false" placeholder="${f.placeholder ?? ''}" value="${valueOf(f)}"${
        f.describedBy === undefined ? '' : html` aria-describedby="${f.describedBy}"`}>`}
</label>`)}
<button type="submit">${submit}</button>
</form>`;
}

/** The banner of an action's outcome, from the console's redirect (`?done=KEY` or `?failed=TEXT`). */
export function outcomeBanner(url: URL, outcomes: Readonly<Record<string, string>>): Html | '' {
  const failed = url.searchParams.get('failed');
  if (failed !== null) return banner(false, `Not done: ${failed.slice(0, 500)}`);
  const done = url.searchParams.get('done');
  return done !== null && outcomes[done] !== undefined ? banner(true, outcomes[done]) : '';
}

/**
 * An audit row's first cells: its seq as the row's header, its time, kind and actor. In a `cards`
 * table on a phone seq, time and kind run in on the card's first line, each whole, and the actor goes
 * below with its label (§24.8); cells after these are labelled with `data-label` by the caller.
 */
export function auditRowHead(seq: number, ts: string, kind: string, actor: string): Html {
  return html`<th scope="row" class="run-in seq">${seq}</th><td class="mono run-in">${timeText(ts)}</td><td class="run-in">${kind}</td>
<td class="wrap" data-label="Actor">${actor}</td>`;
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
