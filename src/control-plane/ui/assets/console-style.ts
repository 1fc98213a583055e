/**
 * The console's style sheet, served as /ui/assets/console.css (a module so the build ships it; no
 * inline style anywhere). Light and dark follow the operating system; colours meet WCAG AA contrast;
 * focus is always visible; tables scroll inside their own region on a phone, except the lists whose
 * titles must stay in view (pages, events) or whose narrow columns would wrap a letter at a time (a
 * page's timeline): `table.cards`, whose rows become cards there, cells of class `run-in` side by side
 * on the card's first line (§24.8). Wider than a phone those cells, an actor and an agent keep to one
 * line: the wrapping What column gives way, not `agent:oncall-escalator` broken mid-word.
 * Triggered, acknowledged and resolved pages each have a colour of their own beside the word.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1a1a; --muted: #4d4d4d; --line: #c8c8c8; --head: #f0f0f0;
  --link: #0b57a4; --focus: #b35900; --bad-bg: #fde7e7; --bad: #8a1010; --ok-bg: #e5f4e8; --ok: #145c24; --chip: #ececec;
  --warn-bg: #fff1d6; --warn: #6b4400; --bar: #2c6bb0; --bar-off: #a86200; --bar-sleep: #6a3fb5; --bar-flap: #b42318; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111417; --fg: #e8e8e8; --muted: #b8b8b8; --line: #3d444b; --head: #1d2226;
    --link: #8cc4ff; --focus: #ffb35c; --bad-bg: #3b1212; --bad: #ffb4b4; --ok-bg: #10311a; --ok: #a6e7b5; --chip: #272d33;
    --warn-bg: #3a2a05; --warn: #ffd68a; --bar: #6ea8f0; --bar-off: #f0a948; --bar-sleep: #b69af5; --bar-flap: #ff8a80; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -10000px; top: 0; background: var(--bg); padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 10; }
.shadow-run { margin: 0; padding: .6rem 1rem; background: #7a3e00; color: #ffffff; font-weight: 600; }
header { border-bottom: 1px solid var(--line); padding: .5rem 1rem; display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; align-items: baseline; }
header .brand { font-weight: 700; margin: 0; font-size: 1.1rem; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
nav a { display: inline-block; padding: .35rem .1rem; text-decoration: none; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; text-underline-offset: .3em; }
main { padding: 0 1rem 2rem; max-width: 90rem; }
h1 { font-size: 1.5rem; margin: 1rem 0 .25rem; overflow-wrap: anywhere; }
.zone { margin: 0 0 .5rem; font-size: .85rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
.scroll { overflow-x: auto; border: 1px solid var(--line); max-width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: var(--head); white-space: nowrap; }
tbody th { font-weight: 600; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .85rem; }
td.wrap, td .wrap { overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--head); padding: .75rem; border: 1px solid var(--line); margin: 0; }
form.filters, form.act { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin: .5rem 0 1rem; }
form.filters label, form.act label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
input, select, button, textarea { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--muted); padding: .3rem .5rem; border-radius: 3px; }
button { cursor: pointer; background: var(--head); }
form.inline { display: inline; margin: 0; }
details summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
details pre { font-size: .8rem; padding: .4rem; }
tr.gap th, tr.gap td { background: var(--bad-bg); color: var(--bad); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0; }
.pager { display: flex; gap: 1.5rem; margin: 1rem 0; }
.note { color: var(--muted); }
.banner { padding: .6rem .8rem; border: 1px solid var(--line); margin: .75rem 0; }
.banner.bad { background: var(--bad-bg); color: var(--bad); border-color: var(--bad); }
.banner.ok { background: var(--ok-bg); color: var(--ok); border-color: var(--ok); }
.chip { display: inline-block; background: var(--chip); border-radius: 3px; padding: 0 .4rem; }
.state { display: inline-block; border-radius: 3px; padding: 0 .45rem; font-weight: 700; border: 1px solid; white-space: nowrap; }
.state-triggered { background: var(--bad-bg); color: var(--bad); border-color: var(--bad); }
.state-acknowledged { background: var(--warn-bg); color: var(--warn); border-color: var(--warn); }
.state-resolved { background: var(--ok-bg); color: var(--ok); border-color: var(--ok); font-weight: 400; }
.sev { font-weight: 700; }
.lead { font-size: 1.05rem; display: flex; flex-wrap: wrap; gap: .25rem .6rem; align-items: baseline; }
th.title { font-weight: 600; overflow-wrap: anywhere; min-width: 12rem; }
th.title .note { font-weight: 400; white-space: nowrap; }
ul.facts-list, ul.events { padding-left: 1.2rem; margin: .5rem 0; }
ul.facts-list li, ul.events li { overflow-wrap: anywhere; margin: .15rem 0; }
ul.facts-list li.sub { margin-left: 1rem; }
.wrap { overflow-wrap: anywhere; }
form.who { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; margin: 0; font-size: .9rem; }
form.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 1rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ol.log { list-style: none; padding: 0; margin: 0; border: 1px solid var(--line); max-height: 70vh; overflow-y: auto; }
ol.log li { padding: .2rem .5rem; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
figure.chart { margin: 1.25rem 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: .35rem; }
table.bars td.bar { width: 55%; min-width: 6rem; vertical-align: middle; }
table.bars td.num { white-space: nowrap; }
svg.bar { display: block; width: 100%; height: 1rem; }
svg.swatch { width: .8rem; height: .8rem; vertical-align: -.05rem; }
ul.legend { list-style: none; padding: 0; margin: 0 0 .4rem; display: flex; flex-wrap: wrap; gap: .2rem 1rem; font-size: .85rem; }
.bar-time, .bar-business, .bar-hours, .bar-pages { fill: var(--bar); }
.bar-off { fill: var(--bar-off); }
.bar-sleep { fill: var(--bar-sleep); }
.bar-flapping { fill: var(--bar-flap); }
@media (min-width: 40.01rem) {
  table.cards td.run-in, table.cards td[data-label="Actor"], table.cards td[data-label="Agent"] { white-space: nowrap; }
}
@media (max-width: 40rem) {
  main { padding: 0 .5rem 2rem; } th, td { padding: .3rem .4rem; }
  table.cards thead { position: absolute; left: -10000px; }
  table.cards, table.cards tbody, table.cards tr, table.cards th, table.cards td { display: block; width: auto; min-width: 0; }
  table.cards tr { border-bottom: 2px solid var(--line); padding: .35rem 0; }
  table.cards th, table.cards td { border: 0; padding: .1rem .4rem; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  table.cards .run-in { display: inline-block; }
  table.cards th.seq::before { content: "#"; }
  table.cards time { white-space: nowrap; }
  .scroll:has(table.cards) { overflow-x: visible; }
}
`;
