/**
 * Bar charts for /ui/reports (contract §23.2): drawn on the server as SVG, no script, nothing inline
 * that the console's CSP would stop (geometry in attributes, colours from the style sheet by class).
 * A chart is a table: each row names what it measures, draws its bar, and gives its numbers in text
 * beside it — a screen reader reads the row; the bar is an image named by its `<title>` (also the
 * tooltip), so nothing is only a length.
 */
import type { Html } from '../html.js';
import { html } from '../html.js';

/** A part of a bar: its value and its class (colour, from the style sheet). */
export interface BarPart {
  value: number;
  kind: string;
}

export interface BarRow {
  label: string;
  parts: readonly BarPart[];
  /** The numbers beside the bar. */
  text: string;
  /** The bar as words: its accessible name and tooltip. */
  title: string;
}

export interface Chart {
  /** Unique on the page: ids derive from it. */
  id: string;
  caption: string;
  /** What the labels are (a column header), and what the numbers are. */
  labelHeader: string;
  valueHeader: string;
  rows: readonly BarRow[];
  /** The colours of the parts and what each means, when a bar has more than one. */
  legend?: ReadonlyArray<{ kind: string; name: string }>;
  empty: string;
}

/** Bar widths in a 100-unit-wide box; a value above nothing stays visible. */
const WIDTH = 100;
const HEIGHT = 10;
const MIN_VISIBLE = 0.6;

function bar(parts: readonly BarPart[], max: number, title: string): Html {
  let x = 0;
  const rects: Html[] = [];
  for (const p of parts) {
    if (p.value <= 0 || max <= 0) continue;
    const w = Math.max(MIN_VISIBLE, (p.value / max) * WIDTH);
    rects.push(html`<rect class="bar-${p.kind}" x="${round(x)}" y="0" width="${round(w)}" height="${HEIGHT}"></rect>`);
    x += w;
  }
  return html`<svg class="bar" role="img" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" focusable="false"><title>${title}</title>${rects}</svg>`;
}

const round = (n: number): number => Math.round(n * 100) / 100;

function swatch(kind: string): Html {
  return html`<svg class="swatch" viewBox="0 0 10 10" aria-hidden="true" focusable="false"><rect class="bar-${kind}" width="10" height="10"></rect></svg>`;
}

export function barChart(c: Chart): Html {
  const max = Math.max(0, ...c.rows.map((r) => r.parts.reduce((sum, p) => sum + Math.max(0, p.value), 0)));
  const legend = c.legend === undefined ? '' : html`<ul class="legend" aria-label="Colours of ${c.caption}">${c.legend.map((l) => html`<li>${swatch(l.kind)} ${l.name}</li>`)}</ul>`;
  const body = c.rows.length === 0 ? html`<p class="note">${c.empty}</p>`
    : html`<div class="scroll" role="region" aria-labelledby="${c.id}-caption" tabindex="0"><table class="bars">
<thead><tr><th scope="col">${c.labelHeader}</th><th scope="col"><span class="skip">Bar</span></th><th scope="col">${c.valueHeader}</th></tr></thead>
<tbody>
${c.rows.map((r) => html`<tr><th scope="row">${r.label}</th><td class="bar">${bar(r.parts, max, r.title)}</td><td class="num">${r.text}</td></tr>`)}
</tbody></table></div>`;
  return html`<figure class="chart" aria-labelledby="${c.id}-caption"><figcaption id="${c.id}-caption">${c.caption}</figcaption>${legend}${body}</figure>`;
}
