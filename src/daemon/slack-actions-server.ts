/**
 * The `type: slack` source (contract §18.2): Slack posts a button click on a page message to
 * `POST /webhooks/<id>`, form-encoded `payload=<block_actions JSON>`, signed
 * `X-Slack-Signature: v0=HMAC-SHA256(signingSecret, "v0:<X-Slack-Request-Timestamp>:<body>")`.
 * A bad signature or a timestamp more than 300 s away is 401 and nothing is done. The clicking Slack
 * user must be some person's `contacts` value on one of the agent's Slack channels; otherwise the
 * refusal is audited (`page.ack-refused`, on the page's timeline) and told to the user alone through
 * `response_url`; an action the page engine refuses is audited there too. An action is committed
 * through the page engine before the 200 (Slack wants it within 3 s). A signed request acts once: sent
 * again while its timestamp is still in the window (a replay), it is answered 200 and does nothing —
 * escalating is not idempotent. The store holds what was answered (claimOnce), so every replica knows.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readRequestBody } from '../core/read-request.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SlackSourceConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { Person } from '../oncall/oncall-config.js';
import { SLACK_ACTION_IDS } from '../runtime/channels/slack-blocks.js';
import type { PageAction, PageEngine } from '../runtime/oncall/page-engine.js';
import type { Store } from '../store/store.js';
import { createSourceListener } from './source-listener.js';
import type { SourceListener } from './source-listener.js';

/** Slack's replay window (https://api.slack.com/authentication/verifying-requests-from-slack). */
export const SLACK_TIMESTAMP_WINDOW_S = 300;
/** A block_actions payload is a few KiB; more is not Slack's, and parsing stays bounded. */
const MAX_BODY_BYTES = 64 * 1024;
const RESPONSE_URL_TIMEOUT_MS = 2_500;

/** The buttons of a page message (§18.1) and what each does. */
export const SLACK_ACTIONS: Readonly<Record<string, PageAction>> = {
  [SLACK_ACTION_IDS.ack]: { kind: 'ack', note: null },
  [SLACK_ACTION_IDS.resolve]: { kind: 'resolve', note: null },
  [SLACK_ACTION_IDS.escalate]: { kind: 'escalate', toStep: null },
};

export interface SlackActionsDeps {
  agentId: string;
  source: SlackSourceConfig;
  /** The agent's Slack channel ids: a person's address on one of them is their Slack user id. */
  slackChannelIds: readonly string[];
  people: () => readonly Person[];
  engine: PageEngine;
  store: Store;
  clock: Clock;
  log: AgentLog;
  report: (line: string) => void;
  /** How an ephemeral answer reaches response_url (injected for tests). */
  postJson?: (url: string, body: unknown) => Promise<void>;
}

export type SlackActionsServer = SourceListener;

/** True when the v0 signature matches and the timestamp is within the window. */
export function verifySlackSignature(secret: string, timestamp: string | undefined, signature: string | undefined, body: string,
  nowMs: number): boolean {
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_TIMESTAMP_WINDOW_S) return false;
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * What makes a signed request the same request, and until when a replay of it could pass the
 * signature check: its signature (an HMAC over timestamp and body), held until its timestamp leaves
 * the window.
 */
export function replayKey(sourceId: string, timestamp: string, signature: string): { key: string; untilMs: number } {
  return { key: `slack:${sourceId}:${createHash('sha256').update(signature).digest('base64url')}`,
    untilMs: (Number(timestamp) + SLACK_TIMESTAMP_WINDOW_S) * 1000 + 1000 };
}

interface Click { userId: string; actionId: string; pageId: string; responseUrl: string | null }

/** The first action of a block_actions payload, or null when the body is not one. */
export function parseClick(body: string): Click | null {
  const payload = new URLSearchParams(body).get('payload');
  if (payload === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const p = value as { type?: unknown; user?: { id?: unknown }; actions?: unknown; response_url?: unknown };
  const action = Array.isArray(p.actions) ? (p.actions[0] as { action_id?: unknown; value?: unknown } | undefined) : undefined;
  if (p.type !== 'block_actions' || typeof p.user?.id !== 'string' || typeof action?.action_id !== 'string' || typeof action.value !== 'string') return null;
  const responseUrl = typeof p.response_url === 'string' && /^https?:\/\//.test(p.response_url) ? p.response_url : null;
  return { userId: p.user.id, actionId: action.action_id, pageId: action.value, responseUrl };
}

export function createSlackActionsServer(deps: SlackActionsDeps): SlackActionsServer {
  const { source, clock, log } = deps;
  const post = deps.postJson ?? (async (url: string, body: unknown): Promise<void> => {
    await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: JSON.stringify(body),
      signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS) });
  });
  const ephemeral = (click: Click, text: string): void => {
    if (click.responseUrl === null) return;
    post(click.responseUrl, { response_type: 'ephemeral', replace_original: false, text })
      .catch((err: unknown) => log.write('warn', 'slack-action.response-failed', { source: source.id, error: errorText(err) }));
  };

  const personOf = (userId: string): Person | undefined =>
    deps.people().find((p) => deps.slackChannelIds.some((ch) => p.contacts[ch] === userId));

  async function onClick(click: Click): Promise<void> {
    const action = SLACK_ACTIONS[click.actionId];
    if (action === undefined) return; // another app's button: nothing of ours
    // Audited like every refused answer (on the page's timeline), and told to the clicking user alone.
    const refuse = async (reason: string, text: string): Promise<void> => {
      await deps.engine.refuse(deps.agentId, click.pageId, action.kind, { actor: `slack:${click.userId}`, by: click.userId, via: 'slack' }, reason);
      ephemeral(click, text);
    };
    const person = personOf(click.userId);
    if (person === undefined) {
      await refuse('unknown-user', 'You are not on call for svc, so this button does nothing for you.');
      return;
    }
    const page = await deps.store.oncall.getPage(click.pageId);
    if (page === null || page.agentId !== deps.agentId) {
      await refuse('unknown-page', `There is no page ${click.pageId}.`);
      return;
    }
    const outcome = await deps.engine.act(click.pageId, action, { actor: `slack:${click.userId}`, by: person.id, via: 'slack' });
    if (!outcome.ok) ephemeral(click, `Nothing changed: ${outcome.reason}.`);
    log.write('info', 'slack-action', { source: source.id, pageId: click.pageId, person: person.id, action: click.actionId,
      changed: outcome.ok && outcome.changed });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number, text = ''): void => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
    };
    if ((req.url ?? '').split('?')[0] !== `/webhooks/${source.id}`) return answer(404, 'not found\n');
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return answer(405, 'method not allowed\n');
    }
    const body = await readRequestBody(req, MAX_BODY_BYTES);
    if (body === null) {
      res.setHeader('Connection', 'close');
      return answer(413, 'body too large\n');
    }
    const ts = req.headers['x-slack-request-timestamp'];
    const sig = req.headers['x-slack-signature'];
    if (typeof ts !== 'string' || typeof sig !== 'string' || !verifySlackSignature(source.signingSecret, ts, sig, body, clock.now())) {
      log.write('warn', 'slack-action.rejected', { source: source.id, reason: 'signature' });
      return answer(401, 'bad or stale signature\n');
    }
    const click = parseClick(body);
    if (click === null) return answer(400, 'not a block_actions payload\n');
    const once = replayKey(source.id, ts, sig);
    if (!(await deps.store.oncall.claimOnce(once.key, once.untilMs, clock.now()))) {
      log.write('warn', 'slack-action.replayed', { source: source.id, pageId: click.pageId, action: click.actionId });
      return answer(200);
    }
    await onClick(click);
    answer(200);
  }

  return createSourceListener({
    source,
    handle,
    onError: (err) => deps.report(`slack source ${source.id}: ${errorText(err)}`),
    unavailable: (res) => res.writeHead(503).end(),
  });
}
