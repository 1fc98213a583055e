/**
 * /ui/: what runs now, from the /status document (contract §7): agents, their sources with live
 * counts, channels and MCP servers. The region refreshes itself (console.js). On-call (who has the
 * pager, open pages, heartbeats) joins this view when on-call exists; until then the view says that
 * it is not configured, which is true of every agent today.
 */
import type { StatusSnapshot } from '../../routes/status-route.js';
import { html } from '../html.js';
import { table } from './parts.js';
import type { View } from './view-types.js';

export const nowView: View = (deps) => {
  const status = JSON.parse(deps.snapshot()) as StatusSnapshot;
  const agents = status.agents.map((a) => html`<tr><th scope="row">${a.id}</th><td>${a.state}</td><td>${a.provider}</td></tr>`);
  const sources = status.agents.flatMap((a) => a.sources.map((s) => html`<tr><th scope="row">${s.id}</th><td>${a.id}</td><td>${s.type}</td>
<td class="wrap">${s.summary}</td><td>${s.received}</td><td>${s.processed}</td>
<td>${s.dlq > 0 ? html`<a href="/ui/dlq?source=${encodeURIComponent(s.id)}">${s.dlq}</a>` : '0'}</td><td>${s.inflight}</td></tr>`));
  const channels = status.agents.flatMap((a) => a.channels.map((c) => html`<tr><th scope="row">${c.id}</th><td>${a.id}</td><td>${c.type}</td>
<td>${c.direction}</td><td>${c.ready ? 'ready' : html`<strong>not ready</strong>`}</td></tr>`));
  const mcp = status.agents.flatMap((a) => a.mcpServers.map((m) => html`<tr><th scope="row">${m.id}</th><td>${a.id}</td><td>${m.state}</td>
<td>${m.circuit}</td><td>${m.restarts}</td></tr>`));
  return Promise.resolve({
    status: 200, title: 'Now', section: '/ui/',
    body: html`<div id="live" data-refresh="5">
<p class="note">Daemon pid ${status.pid}, up since <time datetime="${status.startedAt}">${status.startedAt}</time>; store ${status.store.kind}.</p>
<h2>On call</h2>
<p>On-call is not configured for any agent: no schedule, no pages, no heartbeats.</p>
<h2>Agents</h2>
${table('Agents', ['Agent', 'State', 'Provider'], agents, 'No agents run.')}
<h2>Sources</h2>
${table('Sources', ['Source', 'Agent', 'Type', 'Listens on', 'Received', 'Processed', 'Dead letters', 'In flight'], sources, 'No sources.')}
<h2>Channels</h2>
${table('Channels', ['Channel', 'Agent', 'Type', 'Direction', 'Ready'], channels, 'No channels.')}
${mcp.length > 0 ? html`<h2>MCP servers</h2>${table('MCP servers', ['Server', 'Agent', 'State', 'Circuit', 'Restarts'], mcp, '')}` : ''}
</div>`,
  });
};
