/**
 * /ui/logs: the agents' log records as they are written, from the control plane's own /logs stream
 * (EventSource in console.js). Without JavaScript the page says how to follow the logs instead.
 */
import { hrefOf, html } from '../html.js';
import { banner, filterForm } from './parts.js';
import type { View } from './view-types.js';

export const logsView: View = (deps, req) => {
  const agents = deps.agents();
  const agent = req.url.searchParams.get('agent') ?? '';
  const form = filterForm('/ui/logs', 'Choose the agent', [{ name: 'agent', label: 'Agent', value: agent, options: ['', ...agents] }]);
  if (agent !== '' && !agents.includes(agent)) {
    return Promise.resolve({ status: 400, title: 'Logs', section: '/ui/logs', body: html`${form}${banner(false, 'invalid agent: not a running agent')}` });
  }
  return Promise.resolve({
    status: 200, title: 'Logs', section: '/ui/logs',
    body: html`${form}
<p id="stream-status" role="status">Connecting to the live stream…</p>
<noscript><p>The live stream needs JavaScript. Without it, follow the logs with <code>svc logs -f</code>.</p></noscript>
<ol class="log" tabindex="0" aria-label="Log records, newest last" data-stream="${hrefOf('/logs', { agent })}"></ol>`,
  });
};
