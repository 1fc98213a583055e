/**
 * A Slack Web API stand-in on loopback: `conversations.open` opens a DM, `chat.postMessage` answers as
 * Slack does (`{ok, channel, ts, message}`); every call is recorded with its parsed JSON body, and a
 * request without the expected bot token gets Slack's `not_authed`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall { method: string; auth: string | undefined; body: Record<string, unknown>; /** the request body's bytes as text */ raw: string }

export interface FakeSlack {
  /** What channels.yaml's `apiUrl` should say. */
  readonly apiUrl: string;
  readonly calls: SlackCall[];
  /** The DM channel id conversations.open returns. */
  readonly dmChannel: string;
  close(): Promise<void>;
}

export async function startFakeSlack(token: string): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const dmChannel = 'D0ONCALL';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      calls.push({ method, auth: req.headers.authorization, body, raw });
      let reply: unknown;
      if (req.headers.authorization !== `Bearer ${token}`) reply = { ok: false, error: 'not_authed' };
      else if (method === 'conversations.open') reply = { ok: true, channel: { id: dmChannel } };
      else if (method === 'chat.postMessage') {
        reply = { ok: true, channel: body.channel, ts: `1700000000.${String(calls.length).padStart(6, '0')}`, message: { text: body.text } };
      } else reply = { ok: false, error: 'unknown_method' };
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api`, calls, dmChannel,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
