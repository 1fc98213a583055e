/**
 * /ui/logs: the agents' log records — it opens with the last 100 (contract §24.8), then follows the
 * listener's own /logs stream from exactly where they end (console.js sends the position as
 * Last-Event-ID: no gap, no duplicate). Without JavaScript the page shows the last records and says
 * how to follow the logs.
 */
import { lastRecords } from '../../../logs/last-records.js';
import { encodeResumeId } from '../../../logs/resume-id.js';
import type { Html } from '../html.js';
import { hrefOf, html } from '../html.js';
import { banner, filterForm } from './parts.js';
import type { View } from './view-types.js';

/** Records the view opens with. */
export const OPENING_RECORDS = 100;

/** One record as the script shows the live ones: `ts level agent event`, then the line as written. */
function recordText(text: string): string {
  try {
    const r = JSON.parse(text) as Record<string, unknown>;
    const head = [r.ts, r.level, r.agentId, r.event].filter((v) => typeof v === 'string').join(' ');
    return `${head}  ${text}`;
  } catch {
    return text;
  }
}

export const logsView: View = async (deps, req) => {
  const agents = deps.agents();
  const agent = req.url.searchParams.get('agent') ?? '';
  const form = filterForm('/ui/logs', 'Choose the agent', [{ name: 'agent', label: 'Agent', value: agent, options: ['', ...agents] }]);
  if (agent !== '' && !agents.includes(agent)) {
    return { status: 400, title: 'Logs', section: '/ui/logs', body: html`${form}${banner(false, 'invalid agent: not a running agent')}` };
  }
  // The stream's agents, as /logs takes them: one, or every running agent.
  const shown = agent === '' ? [...new Set(agents)].sort() : [agent];
  const last = await lastRecords(shown, deps.logPath, OPENING_RECORDS);
  const items: Html[] = last.records.map((r) => html`<li>${recordText(r.text)}</li>`);
  return {
    status: 200, title: 'Logs', section: '/ui/logs',
    body: html`${form}
<p id="stream-status" role="status">${items.length === 0 ? 'No records yet.' : `The last ${items.length} records.`} Connecting to the live stream…</p>
<noscript><p>The live stream needs JavaScript. Without it, follow the logs with <code>svc logs -f</code>.</p></noscript>
<ol class="log" tabindex="0" aria-label="Log records, newest last" data-stream="${hrefOf('/logs', { agent })}" data-resume="${encodeResumeId(last.positions)}">${items}</ol>`,
  };
};
