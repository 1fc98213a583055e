/**
 * HTML text for the console (contract §19.2): one escape function, and a tagged template that runs
 * every interpolated value through it unless the value is already `Html` (built by this tag). So a
 * label, annotation, fingerprint or payload from outside can only ever be text: the one way to put
 * markup on a page is to write it in a template here.
 */

/** Markup built by `html` (or `raw` for fixed text written in this program). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text → HTML text, safe in element content and in quoted attribute values. Bidi controls
 * (U+202A–U+202E, U+2066–U+2069) are shown as their code points: a right-to-left override in a label
 * would otherwise reorder what the operator reads after it.
 */
export function escapeHtml(value: string): string {
  return value
    .replace(/[&<>"']/g, (c) => ESCAPES[c] as string)
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => `&lt;U+${c.codePointAt(0)?.toString(16).toUpperCase() ?? ''}&gt;`);
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<td>${label}</td>\``: interpolations escaped, arrays joined, null/undefined/false dropped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** A URL path with query parameters, each encoded: for href and action attributes (then escaped by `html`). */
export function hrefOf(path: string, params: Record<string, string | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s === '' ? path : `${path}?${s}`;
}
