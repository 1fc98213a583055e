/**
 * /ui/: what runs now, from the /status document (contract §7): agents, their sources with live
 * counts, channels and MCP servers. The region refreshes itself (console.js). When an agent has an
 * oncall.yaml it starts with who has the pager in every schedule (as GET /oncall answers) and the open
 * pages; otherwise it says that on-call is not configured.
 */
import type { StatusSnapshot } from '../../routes/status-route.js';
import type { StoredPage } from '../../../store/oncall-store.js';
import { takeTurn } from '../../read-gate.js';
import { usableOverrides } from '../../../oncall/schedule.js';
import { scheduleView } from '../../routes/oncall-route.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { NOT_CONFIGURED } from './oncall-view.js';
import { PAGE_COLUMNS, messagesOf, pageRow } from './page-parts.js';
import { table, timeCell, timeText } from './parts.js';
import type { View } from './view-types.js';

/** Open pages shown on Now, per state; the rest are a link away. */
const OPEN_PAGES_SHOWN = 20;

async function onCall(deps: Parameters<View>[0], signal: AbortSignal): Promise<Html | null> {
  const configs = deps.oncall.configs();
  if (configs.length === 0) return html`<p>${NOT_CONFIGURED}</p>`;
  const nowMs = deps.oncall.clock.now();
  const rows: Html[] = [];
  for (const { agentId, config } of configs) {
    const overrides = usableOverrides(config, await deps.oncall.overrides(agentId, nowMs));
    for (const schedule of config.schedules) {
      const v = scheduleView(agentId, schedule, overrides, nowMs);
      const who = v.onCall[0];
      rows.push(html`<tr><th scope="row">${v.id}</th><td>${agentId}</td>
<td>${who === undefined ? html`<strong>nobody</strong>` : who.person}</td><td>${who?.source ?? '—'}</td>${timeCell(who?.until ?? null)}</tr>`);
    }
  }
  const leave = await takeTurn(deps.gate, signal);
  if (leave === null) return null;
  const open: StoredPage[] = [];
  try {
    for (const state of ['triggered', 'acknowledged'] as const) {
      const page = await deps.store.oncall.listPages({ limit: OPEN_PAGES_SHOWN, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, { state });
      open.push(...page.items);
    }
  } finally {
    leave();
  }
  const messages = await messagesOf(deps, open);
  return html`${table('Who is on call', ['Schedule', 'Agent', 'Person', 'Source', 'Until'], rows, 'No schedules.')}
<p class="note">As of ${timeText(nowMs)}. <a href="/ui/oncall">Coverage, 14 days</a></p>
<h2>Open pages</h2>
${table('Open pages', PAGE_COLUMNS, open.map((p) => pageRow(p, messages.get(p.id) ?? null)), 'No open pages.', { cards: true })}
<p class="note"><a href="/ui/pages">All pages</a></p>`;
}

export const nowView: View = async (deps, req) => {
  const oncall = await onCall(deps, req.signal);
  if (oncall === null) return { status: 0 };
  const status = JSON.parse(deps.snapshot()) as StatusSnapshot;
  const agents = status.agents.map((a) => html`<tr><th scope="row">${a.id}</th><td>${a.state}</td><td>${a.provider}</td></tr>`);
  const sources = status.agents.flatMap((a) => a.sources.map((s) => html`<tr><th scope="row">${s.id}</th><td>${a.id}</td><td>${s.type}</td>
<td class="wrap">${s.summary}</td><td>${s.received}</td><td>${s.processed}</td>
<td>${s.dlq > 0 ? html`<a href="/ui/dlq?source=${encodeURIComponent(s.id)}">${s.dlq}</a>` : '0'}</td><td>${s.inflight}</td></tr>`));
  const channels = status.agents.flatMap((a) => a.channels.map((c) => html`<tr><th scope="row">${c.id}</th><td>${a.id}</td><td>${c.type}</td>
<td>${c.direction}</td><td>${c.ready ? 'ready' : html`<strong>not ready</strong>`}</td></tr>`));
  const mcp = status.agents.flatMap((a) => a.mcpServers.map((m) => html`<tr><th scope="row">${m.id}</th><td>${a.id}</td><td>${m.state}</td>
<td>${m.circuit}</td><td>${m.restarts}</td></tr>`));
  return {
    status: 200, title: 'Now', section: '/ui/',
    body: html`<div id="live" data-refresh="5">
<p class="note">Daemon pid ${status.pid}, up since ${timeText(status.startedAt)}; store ${status.store.kind}.</p>
<h2>On call</h2>
${oncall}
<h2>Agents</h2>
${table('Agents', ['Agent', 'State', 'Provider'], agents, 'No agents run.')}
<h2>Sources</h2>
${table('Sources', ['Source', 'Agent', 'Type', 'Listens on', 'Received', 'Processed', 'Dead letters', 'In flight'], sources, 'No sources.')}
<h2>Channels</h2>
${table('Channels', ['Channel', 'Agent', 'Type', 'Direction', 'Ready'], channels, 'No channels.')}
${mcp.length > 0 ? html`<h2>MCP servers</h2>${table('MCP servers', ['Server', 'Agent', 'State', 'Circuit', 'Restarts'], mcp, '')}` : ''}
</div>`,
  };
};
