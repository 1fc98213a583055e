/**
 * The `type: ack` source's listener (contract §18.6): `GET /ack/<token>` shows a confirm form and
 * changes nothing (mail and chat link scanners fetch links); `POST /ack/<token>` acts once through the
 * page engine as the token's person (`via: link`). The chain actor of that action is `link:<token id>`,
 * so "used" is a fact of the page's audit timeline — read from the hashed rows themselves
 * (store/story-rows.ts): it survives a restart, holds across replicas, and no table beside the chain
 * can make it unused. A token names the opening of the page it was minted for: after the page
 * resolved and reopened, its old links no longer act. An expired, used, forged or foreign token, a
 * page already resolved or reopened since, gets a 4xx and nothing changes; a POST so refused is
 * audited `page.ack-refused` (on the page's timeline) when the token's MAC held — a token that fails
 * it names nothing svc can trust, and is logged only, so strangers cannot write to the chain.
 * Listening and closing are the shared source listener's (source-listener.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AckSourceConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { AckClaims, LinkAction } from '../oncall/ack-token.js';
import { ACK_LINK_TTL_MS, checkAckToken, mintAckToken } from '../oncall/ack-token.js';
import type { ListedAuditRow } from '../store/store.js';
import { incarnationOf } from '../oncall/page.js';
import type { Actor } from '../oncall/page-plan.js';
import type { AckLinks } from '../runtime/channels/channel.js';
import type { PageEngine } from '../runtime/oncall/page-engine.js';
import { isDamagedPage } from '../store/oncall-store.js';
import type { Store } from '../store/store.js';
import { ACK_PAGE_HEADERS, confirmPage, messagePage } from './ack-link-page.js';
import { createSourceListener } from './source-listener.js';

/** The form carries nothing that matters; a larger body is not a browser's. */
const MAX_FORM_BYTES = 4 * 1024;
const PATH_PREFIX = '/ack/';

export interface AckLinkServerDeps {
  agentId: string;
  source: AckSourceConfig;
  engine: PageEngine;
  store: Store;
  clock: Clock;
  log: AgentLog;
  report: (line: string) => void;
}

export interface AckLinkServer {
  start(): Promise<void>;
  port(): number;
  /** What links start with: `publicUrl`, or this listener's own address. */
  publicUrl(): string;
  /** A config reload's new `publicUrl` (undefined: this listener's own address): links minted from now on start with it. */
  usePublicUrl(url: string | undefined): void;
  /** A person's links to an incarnation of a page (oncall/page.ts incarnationOf), valid for 24 h (§18.6). */
  links(pageId: string, person: string, incarnation: number): AckLinks;
  close(): Promise<void>;
}

/** The chain actor of an action taken through a link: names the token, never carries it. */
export const linkActor = (tokenId: string): string => `link:${tokenId}`;

/** Whether the link acted on the page: a row of the page's timeline that acknowledged or resolved it as the link (a refusal as the link is no use). */
export function linkUsed(timeline: readonly ListedAuditRow[], tokenId: string): boolean {
  return timeline.some((row) => row.actor === linkActor(tokenId) && (row.kind === 'page.acknowledged' || row.kind === 'page.resolved'));
}

interface Answer { status: number; body: string }

export function createAckLinkServer(deps: AckLinkServerDeps): AckLinkServer {
  const { source, clock, log } = deps;
  let configuredUrl = source.publicUrl;

  const refuse = (status: number, heading: string, sentence: string, reason: string): Answer => {
    log.write('warn', 'ack-link.refused', { source: source.id, status, reason });
    return { status, body: messagePage(heading, sentence) };
  };

  function publicUrl(): string {
    if (configuredUrl !== undefined) return configuredUrl.replace(/\/+$/, '');
    const host = source.bind.includes(':') ? `[${source.bind}]` : source.bind;
    return `http://${host}:${listener.port()}/ack`;
  }

  async function answer(method: string, token: string): Promise<Answer> {
    const checked = checkAckToken(token, source.secret, clock.now());
    if (!checked.ok && checked.reason !== 'expired') return refuse(403, 'Link not valid', 'This link is not valid.', checked.reason);
    const { claims, tokenId } = checked;
    const actor: Actor = { actor: linkActor(tokenId), by: claims.person, via: 'link' };
    // A look (GET) changes nothing and writes nothing; an attempt to act (POST) that is refused is audited.
    const refused = async (status: number, heading: string, sentence: string, reason: string): Promise<Answer> => {
      if (method === 'POST') await deps.engine.refuse(deps.agentId, claims.pageId, claims.action, actor, reason);
      return refuse(status, heading, sentence, reason);
    };
    if (!checked.ok) return refused(410, 'Link expired', 'This link has expired. Use svc ack or a newer message.', 'expired');
    if (claims.agentId !== deps.agentId) return refused(403, 'Link not valid', 'This link is not valid.', 'foreign');
    const page = await deps.store.oncall.getPage(claims.pageId);
    if (page === null || page.agentId !== claims.agentId) return refused(403, 'Link not valid', 'This link is not valid.', 'foreign');
    if (isDamagedPage(page)) return refused(409, 'Nothing changed', `Page ${page.id} is stored damaged and was set aside.`, 'damaged');
    if (incarnationOf(page) !== claims.incarnation) {
      return refused(410, 'Page reopened', `Page ${page.id} was resolved and has opened again since this link was sent; use the newest message.`, 'reopened');
    }
    if (page.state === 'resolved') {
      return refused(410, 'Page already resolved', `Page ${page.id} is already resolved; this link no longer acts.`, 'resolved');
    }
    if (linkUsed(await deps.store.oncall.pageTimeline(page.id), tokenId)) {
      return refused(409, 'Link already used', 'This link was already used; each link acts once.', 'used');
    }
    if (method === 'GET') return { status: 200, body: confirmPage(claims.action, claims.person, page.id, page.title) };
    return act(claims, actor);
  }

  async function act(claims: AckClaims, actor: Actor): Promise<Answer> {
    const action = claims.action === 'ack' ? { kind: 'ack' as const, note: null } : { kind: 'resolve' as const, note: null };
    // Only on the opening the link was minted for: a reopening that commits meanwhile makes this a refusal (audited by the engine).
    const outcome = await deps.engine.act(claims.pageId, action, actor, { incarnation: claims.incarnation });
    if (!outcome.ok) return refuse(409, 'Nothing changed', `${outcome.reason}.`, 'refused');
    if (!outcome.changed) {
      await deps.engine.refuse(deps.agentId, claims.pageId, claims.action, actor, 'already-acknowledged');
      const by = outcome.page.acknowledgedBy === null ? '' : ` by ${outcome.page.acknowledgedBy}`;
      return refuse(409, 'Nothing changed', `Page ${claims.pageId} is already acknowledged${by}.`, 'unchanged');
    }
    log.write('info', 'ack-link.used', { source: source.id, pageId: claims.pageId, person: claims.person, action: claims.action });
    return claims.action === 'ack'
      ? { status: 200, body: messagePage('Acknowledged', `Page ${claims.pageId} is acknowledged by ${claims.person}; its escalation has stopped.`) }
      : { status: 200, body: messagePage('Resolved', `Page ${claims.pageId} is resolved by ${claims.person}.`) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (a: Answer, extra: Record<string, string> = {}): void => {
      res.writeHead(a.status, { ...ACK_PAGE_HEADERS, ...extra }).end(a.body);
    };
    const path = (req.url ?? '').split('?')[0] ?? '';
    const token = path.startsWith(PATH_PREFIX) ? path.slice(PATH_PREFIX.length) : '';
    if (token === '' || token.includes('/')) {
      send({ status: 404, body: messagePage('Not found', 'There is nothing here.') });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      send({ status: 405, body: messagePage('Method not allowed', 'Open the link in a browser.') }, { Allow: 'GET, POST' });
      return;
    }
    if (req.method === 'POST' && !(await drained(req))) {
      send({ status: 413, body: messagePage('Too large', 'The form is larger than a browser sends.') }, { Connection: 'close' });
      return;
    }
    send(await answer(req.method, token));
  }

  const listener = createSourceListener({
    source,
    handle,
    onError: (err) => deps.report(`ack link listener ${source.id}: ${errorText(err)}`),
    unavailable: (res) => res.writeHead(503, ACK_PAGE_HEADERS).end(messagePage('Try again', 'svc could not answer this now.')),
  });

  return {
    start: () => listener.start(),
    port: () => listener.port(),
    publicUrl,
    usePublicUrl(url) {
      configuredUrl = url;
    },
    links(pageId, person, incarnation) {
      const expiresAtMs = clock.now() + ACK_LINK_TTL_MS;
      const url = (action: LinkAction): string =>
        `${publicUrl()}/${mintAckToken({ agentId: deps.agentId, pageId, person, action, expiresAtMs, incarnation }, source.secret)}`;
      return { ack: url('ack'), resolve: url('resolve') };
    },
    close: () => listener.close(),
  };
}

/** Reads and drops the form body; false when it is larger than any browser form of ours. */
async function drained(req: IncomingMessage): Promise<boolean> {
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return false;
  }
  return true;
}
