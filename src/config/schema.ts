/**
 * Schemas of agent.yaml, event-sources.yaml and channels.yaml (contract §2a). Strict: unknown keys are
 * rejected. Values arrive here with `${env:…}`, `${file:…}` and `${secret:…}` already resolved.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { ntfyChannel } from './ntfy-channel.js';
import { pushoverChannel } from './pushover-channel.js';
import { storeBlockSchema } from './store.js';
import { telegramChannel } from './telegram-channel.js';
import { twilioChannel, twilioSource } from './twilio-channel.js';

export const ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const id = z.string().regex(ID_PATTERN, 'must match ^[a-z0-9][a-z0-9._-]{0,63}$');
const port = z.number().int().min(1).max(65535);
const headerName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name');
/** A DNS name (RFC 1123 labels), for bind addresses. */
const HOST_NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
/** Where a listener binds: an IP address or a host name, never arbitrary text (it ends up in messages and in listen()). */
export const bindAddress = z.string().refine((s) => isIP(s) !== 0 || HOST_NAME.test(s), 'must be an IP address or a host name');
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const PROVIDERS = ['rules', 'anthropic', 'openai'] as const;
export type ProviderName = (typeof PROVIDERS)[number];
/** The providers that call a model over HTTP and run the tool-use loop (contract §14). */
export const LLM_PROVIDERS = ['anthropic', 'openai'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];
/** Where each real provider's key comes from when agent.yaml sets no `apiKey` (contract §14). */
export const DEFAULT_API_KEY_ENV: Readonly<Record<LlmProviderName, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
};
/** `baseUrl` when agent.yaml sets none. Anthropic's gets `/v1/messages` appended, OpenAI's `/chat/completions`. */
export const DEFAULT_BASE_URL: Readonly<Record<LlmProviderName, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
};

const dispatchSchema = z.strictObject({
  /** Deliveries tried before an event is dead-lettered. */
  maxAttempts: z.number().int().min(1).max(20).default(5),
  initialBackoffMs: z.number().int().min(1).max(60_000).default(500),
  maxBackoffMs: z.number().int().min(1).max(600_000).default(30_000),
  /**
   * Events of this agent handled at once (triage and delivery). 16 lets a burst of alerts flow to a
   * channel whose every write is a round trip (measured: 4 delivered ~0.65× the intake of a burst, 16
   * kept up, docs/performance.md); lower it for a provider that must not see that many calls at once.
   */
  concurrency: z.number().int().min(1).max(64).default(16),
});

/** One OAuth scope (RFC 6749 §3.3 scope-token). */
export const scopeToken = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be a scope token');

/** A reference to a secret, resolved when the daemon or the CLI starts: `env:NAME`, `file:PATH`, `secret:PATH`. */
export const SECRET_REF_PATTERN = /^(env|file|secret):[^\s${}]+$/;

/**
 * `controlPlane.auth` (specification "Control-plane auth configuration"). The same block shape serves
 * other surfaces (the RPC peers file), so it is exported on its own.
 */
export const authBlockSchema = z
  .strictObject({
    enabled: z.boolean(),
    provider: z.enum(['oidc', 'oauth2-client']).default('oidc'),
    issuer: httpUrl.optional(),
    audience: z.string().min(1).max(256).optional(),
    jwksUri: httpUrl.optional(),
    scopes: z.array(scopeToken).default([]),
    allowLoopback: z.boolean().default(true),
    tokenEndpoint: httpUrl.optional(),
    clientId: z.string().min(1).max(256).optional(),
    clientSecretRef: z.string().regex(SECRET_REF_PATTERN, 'must be a reference: env:NAME, file:PATH or secret:PATH').optional(),
    /** `svc console` signs operators in with this public client (authorization code + PKCE, contract §19.3). */
    console: z.strictObject({ clientId: z.string().regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 visible ASCII characters') }).optional(),
  })
  .superRefine((auth, ctx) => {
    if (!auth.enabled) return;
    for (const key of ['issuer', 'audience'] as const) {
      if (auth[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'required key missing (auth is enabled)' });
    }
    if (auth.provider === 'oauth2-client') {
      for (const key of ['tokenEndpoint', 'clientId', 'clientSecretRef'] as const) {
        if (auth[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'required key missing (provider oauth2-client)' });
      }
    }
  });
export type AuthBlock = z.infer<typeof authBlockSchema>;

/** A token bucket (runtime/rate-limit/token-bucket.ts): callers wait for a token, they never fail. */
export const rateLimitSchema = z.strictObject({
  perSecond: z.number().positive().max(100_000),
  burst: z.number().int().min(1).max(100_000),
});

/** Exponential back-off bounds (runtime/backoff.ts): doubles from initialBackoffMs up to maxBackoffMs. */
const backoffSchema = z.strictObject({
  initialBackoffMs: z.number().int().min(10).max(60_000).default(500),
  maxBackoffMs: z.number().int().min(10).max(600_000).default(30_000),
}).default({ initialBackoffMs: 500, maxBackoffMs: 30_000 });

/** A stdio MCP server the agent may call (runtime/mcp). Ids are unique across the daemon: they are `server_id`. */
export const mcpServerSchema = z.strictObject({
  id,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Added to a minimal environment (PATH, HOME); the daemon's own environment is not passed on. */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'), z.string()).default({}),
  /** Working directory, relative to the agent directory (default: the agent directory). */
  cwd: z.string().min(1).optional(),
  /** One tool call, end to end; the caller gets an error result after it. */
  callTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  /** Liveness: a ping every interval; no answer within pingTimeoutMs restarts the server. */
  pingIntervalMs: z.number().int().min(100).max(600_000).default(10_000),
  pingTimeoutMs: z.number().int().min(50).max(120_000).default(5_000),
  /** Back-off between restarts: doubles from initialBackoffMs up to maxBackoffMs, reset once it stays up. */
  restart: backoffSchema,
  /** Consecutive failures that open the circuit, and how long it stays open before a half-open trial. */
  circuit: z.strictObject({
    failureThreshold: z.number().int().min(1).max(1000).default(5),
    openMs: z.number().int().min(10).max(3_600_000).default(30_000),
  }).default({ failureThreshold: 5, openMs: 30_000 }),
  /** Most time in-flight calls get to finish before a respawn or stop kills the process. */
  drainTimeoutMs: z.number().int().min(0).max(60_000).default(5_000),
  /** Calls per second to this server; excess calls wait (and count in mcp_server_rate_limited_total). */
  rateLimit: rateLimitSchema.optional(),
});
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const rateLimitsSchema = z.strictObject({
  /** Provider calls of the agent (svc_provider_rate_limit_waits, svc_provider_rate_limit_wait_ms). */
  provider: rateLimitSchema.optional(),
  /** Each tool the agent calls, unless listed in `tools` (svc_tool_rate_limit_waits_total). */
  tool: rateLimitSchema.optional(),
  /** Per tool name. */
  tools: z.record(z.string().min(1).max(128), rateLimitSchema).default({}),
});
export type RateLimitsConfig = z.infer<typeof rateLimitsSchema>;

/** The `rules` provider's optional enrichment: one MCP tool called per triaged event (e.g. a runbook lookup). */
export const rulesSchema = z.strictObject({
  lookup: z.strictObject({
    server: id,
    tool: z.string().min(1).max(128),
    /** The whole lookup, rate-limit waits included; past it the page goes out without the answer. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  }).optional(),
});

const auditExporterBase = {
  id,
  /** Most rows per batch. */
  batchMaxRows: z.number().int().min(1).max(10_000).default(500),
  /** One delivery attempt; a timeout counts as a failure and is retried. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Back-off between failed attempts: doubles from initialBackoffMs up to maxBackoffMs; a receiver's Retry-After wins. */
  retry: backoffSchema,
};
export const httpExporterSchema = z.strictObject({
  ...auditExporterBase,
  type: z.literal('http'),
  url: httpUrl,
  /** `json`: `{"rows":[…]}`; `splunk-hec`: one HEC event object per row, newline-separated. */
  format: z.enum(['json', 'splunk-hec']).default('json'),
  /** Sent as `Authorization: Bearer <token>` (`Splunk <token>` for splunk-hec). Must be a `${…}` reference. */
  token: z.string().min(1).optional(),
});
export const syslogExporterSchema = z.strictObject({
  ...auditExporterBase,
  type: z.literal('syslog'),
  /** host:port of an RFC 5424 receiver over TCP (RFC 6587 octet counting). */
  address: z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port')
    .refine((a) => { const p = Number(a.slice(a.lastIndexOf(':') + 1)); return p >= 1 && p <= 65535; }, 'port must be 1-65535'),
  /** Syslog APP-NAME and HOSTNAME fields. */
  appName: z.string().regex(/^[\x21-\x7E]{1,48}$/, 'must be 1-48 printable ASCII characters').default('svc'),
  hostname: z.string().regex(/^[\x21-\x7E]{1,255}$/, 'must be printable ASCII without spaces').optional(),
});
export const auditExporterSchema = z.discriminatedUnion('type', [httpExporterSchema, syslogExporterSchema]);
export type AuditExporterConfig = z.infer<typeof auditExporterSchema>;
export type HttpExporterConfig = z.infer<typeof httpExporterSchema>;
export type SyslogExporterConfig = z.infer<typeof syslogExporterSchema>;

/** `audit` configures the whole daemon: agents that set it must agree (contract, preamble). */
export const auditSchema = z.strictObject({
  export: z.array(auditExporterSchema).default([]),
  /**
   * Signed checkpoints of the chain head (contract §20.2): `key` is an Ed25519 private key (PEM),
   * only ever a `${secret:…}` reference; one checkpoint after `everyRows` new rows or `everySeconds`,
   * whichever comes first, and none while nothing new was appended.
   */
  checkpoints: z.strictObject({
    key: z.string().min(1),
    everyRows: z.number().int().min(1).max(10_000_000).default(1000),
    everySeconds: z.number().int().min(1).max(86_400).default(60),
  }).optional(),
  /**
   * Back-pressure: when the rows not yet acknowledged by the slowest exporter pass `maxBacklogRows`,
   * the dispatcher stops taking events until the backlog is below `resumeBelowRows`. Rows are never dropped.
   */
  backpressure: z.strictObject({
    maxBacklogRows: z.number().int().min(1).max(10_000_000).default(10_000),
    resumeBelowRows: z.number().int().min(0).max(10_000_000).optional(),
  }).default({ maxBacklogRows: 10_000 }),
  /** Bounds of the adaptive export interval: shortest under load, longest when idle. */
  batch: z.strictObject({
    minIntervalMs: z.number().int().min(1).max(60_000).default(50),
    maxIntervalMs: z.number().int().min(1).max(600_000).default(2_000),
  }).default({ minIntervalMs: 50, maxIntervalMs: 2_000 }),
});
export type AuditConfig = z.infer<typeof auditSchema>;

/** What the tool-use loop does when a triage still fails after its retries (contract §14.3). */
export const LLM_ON_FAILURE = ['rules', 'dead-letter'] as const;

/** `llm.severityFloor`: the rules' severity for the event, or a fixed one (P3: no floor). */
export const SEVERITY_FLOORS = ['rules', 'P1', 'P2', 'P3'] as const;
export type SeverityFloor = (typeof SEVERITY_FLOORS)[number];

/** The tool-use loop of the real providers (agent.yaml `llm`, contract §14). */
export const llmSchema = z.strictObject({
  /** Model calls per triage that got an answer; the last one offers only submit_triage. */
  maxSteps: z.number().int().min(1).max(32).default(8),
  /** `max_tokens` of each model call. */
  maxTokens: z.number().int().min(16).max(64_000).default(1024),
  temperature: z.number().min(0).max(2).default(0),
  /** One HTTP request to the model, until its whole answer is read. */
  callTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  /** The whole triage: every model call, retry wait, rate-limit wait and tool call. */
  triageTimeoutMs: z.number().int().min(100).max(3_600_000).default(120_000),
  onFailure: z.enum(LLM_ON_FAILURE).default('rules'),
  /** A model's severity below this is raised to it, and audited (`triage.severity-raised`). */
  severityFloor: z.enum(SEVERITY_FLOORS).default('rules'),
  /** Requests per model call before the triage fails: 429, 5xx, 529, timeouts and malformed answers are retried. */
  maxAttempts: z.number().int().min(1).max(10).default(3),
  /** Back-off between those attempts; a server's Retry-After wins when it asks for longer. */
  retry: backoffSchema,
});
export type LlmConfig = z.infer<typeof llmSchema>;

/** A tool allowlist entry: a glob over offered tool names (`<serverId>__<toolName>`), `*` and `?` wildcards. */
const toolGlob = z.string().regex(/^[A-Za-z0-9_*?-]{1,128}$/, 'must be a tool name glob: letters, digits, "_", "-", "*" and "?"');

/** Every listener binds here unless its config says otherwise (secure by default). */
export const LOOPBACK = '127.0.0.1';
/** Connections a listener holds at once (contract §11.2); past it new ones are closed at once. */
const connectionLimit = z.number().int().min(1).max(65_535);

/** The control plane when agent.yaml says nothing (contract §3): loopback, the Prometheus exporter port, 128 connections. */
export const DEFAULT_CONTROL_PLANE = { bind: LOOPBACK, port: 9464, maxConnections: 128 } as const;

/** A public URL people reach a listener at: http(s), no query or fragment; paths are appended to it. */
const publicUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://svc.example.com' })
  .refine((u) => !u.includes('?') && !u.includes('#'), 'must not carry a query or a fragment');

/**
 * The team console (contract §24.6): a listener of its own serving the console of §19 to the team,
 * signed in with OpenID Connect (authorization code + PKCE, a confidential client with
 * client_secret_basic, redirect `<publicUrl>/auth/callback`). Daemon-wide, like controlPlane.
 */
export const consoleSchema = z.strictObject({
  bind: bindAddress.default(LOOPBACK),
  /** 0: any free port (tests). */
  port: z.number().int().min(0).max(65535),
  /** How people reach it (a reverse proxy's URL); the sign-in redirect and calendar URLs start with it. */
  publicUrl,
  oidc: z.strictObject({
    issuer: httpUrl,
    clientId: z.string().regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 visible ASCII characters'),
    /** Only ever a `${secret:…}` (or `${env:…}`, `${file:…}`) reference (SECRET_KEYS). */
    clientSecret: z.string().min(1).max(4096),
    /** Asked besides `openid`; `email` lets people[].login name people by their address. */
    scopes: z.array(scopeToken).max(32).default(['email', 'profile']),
  }),
  /** Connections held at once (contract §11.2). */
  maxConnections: connectionLimit.default(128),
});
export type ConsoleConfig = z.infer<typeof consoleSchema>;

export const agentSchema = z.strictObject({
  id,
  provider: z.enum(PROVIDERS),
  /** Real providers only (required there). */
  model: z.string().min(1).max(256).optional(),
  /** Real providers only; default DEFAULT_BASE_URL. */
  baseUrl: httpUrl.optional(),
  /** Real providers only: a `${…}` reference; default DEFAULT_API_KEY_ENV from the environment. */
  apiKey: z.string().min(1).optional(),
  /** Real providers only: MCP tools offered to the model (globs over `<serverId>__<toolName>`); default all. */
  tools: z.array(toolGlob).max(256).optional(),
  /** Real providers only; defaults filled in by the loader. */
  llm: llmSchema.optional(),
  skills: z.array(z.string().min(1)).default([]),
  controlPlane: z
    .strictObject({
      bind: bindAddress.default(DEFAULT_CONTROL_PLANE.bind),
      port: z.number().int().min(0).max(65535).default(DEFAULT_CONTROL_PLANE.port),
      auth: authBlockSchema.optional(),
      /** Connections held at once (contract §11.2); past it new ones are closed at once. */
      maxConnections: connectionLimit.default(DEFAULT_CONTROL_PLANE.maxConnections),
      /** How people reach the control plane (a reverse proxy's URL): calendar URLs start with it when there is no team console (§24.7). */
      publicUrl: publicUrl.optional(),
    })
    .optional(),
  /** The team console (contract §24.6); daemon-wide: agents that set it must agree. */
  console: consoleSchema.optional(),
  dispatch: dispatchSchema.default({ maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 }),
  mcpServers: z.array(mcpServerSchema).default([]),
  rateLimits: rateLimitsSchema.default({ tools: {} }),
  rules: rulesSchema.default({}),
  audit: auditSchema.optional(),
  /** Daemon-wide (contract §10): agents that set it must agree. */
  store: storeBlockSchema.optional(),
});
export type AgentConfig = z.infer<typeof agentSchema>;
export type DispatchConfig = z.infer<typeof dispatchSchema>;

/** Secrets of a source: long enough that guessing is hopeless (a generated one has 64 hex characters). */
const sourceSecret = z.string().min(16, 'must be at least 16 characters');
/** Where a source listens: loopback unless told otherwise. */
const sourceBind = bindAddress.default(LOOPBACK);
/** Connections a source's listener holds at once (contract §11.2); sources sharing a port share the largest. */
const sourceMaxConnections = connectionLimit.default(512);

export const webhookSourceSchema = z.strictObject({
  id,
  type: z.literal('webhook'),
  port,
  bind: sourceBind,
  /** HMAC-SHA-256 of the body in `signatureHeader` (contract §9.2). */
  secret: sourceSecret.optional(),
  /**
   * `Authorization: Bearer <token>` (contract §12.1): what stock Alertmanager sends. Only token68
   * characters can travel in that header (RFC 6750), so a token with others could never match.
   */
  bearerToken: sourceSecret.regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'must be token68 characters (A-Z a-z 0-9 - . _ ~ + /, then = padding): no other can be sent in Authorization: Bearer').optional(),
  /** `Authorization: Basic …` (contract §12.1). */
  basicAuth: z.strictObject({
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
    username: z.string().min(1).max(256).regex(/^[^:\x00-\x1f\x7f]+$/, 'must not contain ":" or control characters'),
    password: sourceSecret,
  }).optional(),
  /** Serve this source over HTTPS: PEM text (normally `${file:…}` for the certificate, `${secret:…}` for the key). */
  tls: z.strictObject({
    cert: z.string().includes('-----BEGIN', { message: 'must be PEM text (use ${file:./cert.pem})' }),
    key: z.string().includes('-----BEGIN', { message: 'must be PEM text (use ${secret:…} or ${file:…})' }),
  }).optional(),
  fingerprintHeader: headerName.default('X-Alert-Fingerprint'),
  signatureHeader: headerName.default('X-Signature'),
  timestampHeader: headerName.optional(),
  maxConnections: sourceMaxConnections,
}).superRefine((source, ctx) => {
  // A source with no way to authenticate would be an open door (contract §12.1).
  if (source.secret === undefined && source.bearerToken === undefined && source.basicAuth === undefined) {
    // At `secret`, so a secret whose reference failed (already reported) is not reported twice.
    ctx.addIssue({ code: 'custom', path: ['secret'], message: 'needs at least one authentication method: secret (HMAC), bearerToken or basicAuth' });
  }
  if (source.timestampHeader !== undefined && source.secret === undefined) {
    ctx.addIssue({ code: 'custom', path: ['timestampHeader'], message: 'applies to HMAC signatures only: set secret too' });
  }
});
export type WebhookSourceConfig = z.infer<typeof webhookSourceSchema>;

/**
 * One-time acknowledgement links (contract §18.6): its own listener serving `GET`/`POST /ack/<token>`.
 * `publicUrl` is how people reach that path (a reverse proxy's URL); links in messages start with it.
 */
export const ackSourceSchema = z.strictObject({
  id,
  type: z.literal('ack'),
  port,
  bind: sourceBind,
  publicUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://svc.example.com/ack' })
    .refine((u) => !u.includes('?') && !u.includes('#'), 'must not carry a query or a fragment (the token is appended as a path segment)').optional(),
  /** The HMAC key of the links' tokens. */
  secret: sourceSecret,
  maxConnections: sourceMaxConnections,
});
export type AckSourceConfig = z.infer<typeof ackSourceSchema>;

/**
 * Slack interactivity (contract §18.2): button clicks on page messages arrive at
 * `POST /webhooks/<id>` on a listener of its own, signed with the Slack app's signing secret.
 */
export const slackSourceSchema = z.strictObject({
  id,
  type: z.literal('slack'),
  port,
  bind: sourceBind,
  signingSecret: sourceSecret,
  maxConnections: sourceMaxConnections,
});
export type SlackSourceConfig = z.infer<typeof slackSourceSchema>;

/** Twilio's callbacks (§21.4): SMS replies, a call's TwiML and digits, call status; a listener of its own. */
export const twilioSourceSchema = twilioSource({ id, port, bind: sourceBind, maxConnections: sourceMaxConnections }, id);
export type TwilioSourceConfig = z.infer<typeof twilioSourceSchema>;

export const sourcesFileSchema = z.strictObject({
  sources: z.array(z.discriminatedUnion('type', [webhookSourceSchema, ackSourceSchema, slackSourceSchema, twilioSourceSchema])).min(1),
});
export type AnySourceConfig = WebhookSourceConfig | AckSourceConfig | SlackSourceConfig | TwilioSourceConfig;

const direction = z.enum(['outbound']);
const retry = {
  maxAttempts: z.number().int().min(1).max(20).optional(),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
};

export const fileChannelSchema = z.strictObject({
  id,
  type: z.literal('file'),
  direction,
  path: z.string().min(1),
  to: z.string().min(1).default('on-call'),
  ...retry,
});
/**
 * A Slack conversation id (https://api.slack.com/types/conversation): `C…` a public channel (and, on
 * newer workspaces, a private one), `G…` a private channel or a group DM, `D…` a direct message;
 * upper-case letters and digits. Not a name like `#oncall`: names change and need not be unique.
 */
export const SLACK_CONVERSATION_ID = /^[CGD][A-Z0-9]{6,31}$/;
/**
 * Slack through a bot token (§9.5, §18.1). Its own recipient — who a message that names no person goes
 * to — is `user` (a direct message) or `conversation` (posted into a shared channel, §24.2), not both;
 * neither is needed when only people's contacts in oncall.yaml use it (config/own-recipient.ts).
 */
export const slackChannelSchema = z.strictObject({
  id,
  type: z.literal('slack'),
  direction,
  token: z.string().min(1),
  user: z.string().min(1).optional(),
  conversation: z.string().regex(SLACK_CONVERSATION_ID,
    'must be a Slack conversation id such as C0123ABCDEF (in Slack: the channel\'s details, at the bottom of About), not a name like #oncall').optional(),
  apiUrl: httpUrl.default('https://slack.com/api'),
  ...retry,
}).superRefine((channel, ctx) => {
  if (channel.user !== undefined && channel.conversation !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['conversation'], message: 'set user (direct messages to one Slack user) or conversation '
      + '(messages into a shared channel), not both: people\'s direct messages come from their contacts in oncall.yaml' });
  }
});
export const webhookChannelSchema = z.strictObject({
  id,
  type: z.literal('webhook'),
  direction,
  url: httpUrl,
  to: z.string().min(1).default('on-call'),
  ...retry,
});
/** Microsoft Teams through a Workflows webhook (§18.3): the URL carries its own signature, so it is a secret. */
export const teamsChannelSchema = z.strictObject({
  id,
  type: z.literal('teams'),
  direction,
  url: httpUrl,
  ...retry,
});
/** PagerDuty Events API v2 (§18.4). */
export const pagerdutyChannelSchema = z.strictObject({
  id,
  type: z.literal('pagerduty'),
  direction,
  /** An Events API v2 integration key: 32 characters. */
  routingKey: z.string().regex(/^[A-Za-z0-9]{32}$/, 'must be an Events API v2 integration key (32 letters and digits)'),
  url: httpUrl.default('https://events.pagerduty.com/v2/enqueue'),
  ...retry,
});
/** SMTP transport security: STARTTLS required (default), TLS from the first byte, or none at all. */
export const SMTP_TLS_MODES = ['starttls', 'implicit', 'none'] as const;
const emailAddress = z.email('must be an email address');
/** Email over SMTP (§18.5). */
export const emailChannelSchema = z.strictObject({
  id,
  type: z.literal('email'),
  direction,
  smtp: z.strictObject({
    host: bindAddress,
    /** Default: 465 for `implicit`, else 587 (submission). */
    port: port.optional(),
    tls: z.enum(SMTP_TLS_MODES).default('starttls'),
    username: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    /** A PEM certificate authority the server's certificate must chain to (a private CA). */
    ca: z.string().includes('-----BEGIN CERTIFICATE-----', { message: 'must be a PEM certificate (use ${file:…})' }).optional(),
  }).superRefine((smtp, ctx) => {
    if (smtp.password !== undefined && smtp.username === undefined) {
      ctx.addIssue({ code: 'custom', path: ['username'], message: 'is required when password is set' });
    }
    if (smtp.username !== undefined && smtp.password === undefined) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'is required when username is set' });
    }
  }),
  from: emailAddress,
  to: emailAddress,
  ...retry,
});
/** SMS or voice through Twilio (§21.4). */
export const twilioChannelSchema = twilioChannel({ id, direction, ...retry }, httpUrl);
/** A Telegram bot (§21.5). */
export const telegramChannelSchema = telegramChannel({ id, direction, ...retry }, httpUrl);
/** Channels that ring a phone (§21.2, §21.3): their own files, built with the keys every channel has. */
export const ntfyChannelSchema = ntfyChannel({ id, direction, ...retry });
export const pushoverChannelSchema = pushoverChannel({ id, direction, ...retry });
export const channelSchema = z.discriminatedUnion('type', [fileChannelSchema, slackChannelSchema, webhookChannelSchema,
  teamsChannelSchema, pagerdutyChannelSchema, emailChannelSchema, ntfyChannelSchema, pushoverChannelSchema, twilioChannelSchema, telegramChannelSchema]);
export type ChannelConfig = z.infer<typeof channelSchema>;
export type FileChannelConfig = z.infer<typeof fileChannelSchema>;
export type SlackChannelConfig = z.infer<typeof slackChannelSchema>;
export type WebhookChannelConfig = z.infer<typeof webhookChannelSchema>;
export type TeamsChannelConfig = z.infer<typeof teamsChannelSchema>;
export type PagerdutyChannelConfig = z.infer<typeof pagerdutyChannelSchema>;
export type EmailChannelConfig = z.infer<typeof emailChannelSchema>;
export type TwilioChannelConfig = z.infer<typeof twilioChannelSchema>;
export type TelegramChannelConfig = z.infer<typeof telegramChannelSchema>;
export type NtfyChannelConfig = z.infer<typeof ntfyChannelSchema>;
export type PushoverChannelConfig = z.infer<typeof pushoverChannelSchema>;

export const channelsFileSchema = z.strictObject({
  channels: z.array(channelSchema).min(1),
});

/** Keys that must hold a `${…}` reference, never a literal secret (file, dotted key path). */
export const SECRET_KEYS: ReadonlyArray<{ file: string; path: RegExp }> = [
  { file: 'event-sources.yaml', path: /^sources\.\d+\.secret$/ },
  { file: 'event-sources.yaml', path: /^sources\.\d+\.bearerToken$/ },
  { file: 'event-sources.yaml', path: /^sources\.\d+\.basicAuth\.password$/ },
  { file: 'event-sources.yaml', path: /^sources\.\d+\.tls\.key$/ },
  { file: 'event-sources.yaml', path: /^sources\.\d+\.signingSecret$/ },
  { file: 'channels.yaml', path: /^channels\.\d+\.token$/ },
  { file: 'channels.yaml', path: /^channels\.\d+\.routingKey$/ },
  { file: 'channels.yaml', path: /^channels\.\d+\.smtp\.password$/ },
  { file: 'channels.yaml', path: /^channels\.\d+\.authToken$/ },
  { file: 'agent.yaml', path: /^audit\.export\.\d+\.token$/ },
  { file: 'agent.yaml', path: /^audit\.checkpoints\.key$/ },
  { file: 'agent.yaml', path: /^apiKey$/ },
  { file: 'agent.yaml', path: /^console\.oidc\.clientSecret$/ },
];

/** Everything `svc up` needs about one agent directory, references resolved, paths absolute. */
export interface LoadedAgent {
  dir: string;
  agent: AgentConfig;
  /** The webhook sources (ingest). */
  sources: WebhookSourceConfig[];
  /** The agent's `type: ack` source (§18.6), when it has one: links in page messages. */
  ackSource?: AckSourceConfig;
  /** The agent's `type: slack` source (§18.2), when it has one: Slack button clicks. */
  slackSource?: SlackSourceConfig;
  /** The agent's `type: twilio` sources (§21.4), one per Twilio channel they serve: SMS replies, calls' TwiML and status. */
  twilioSources?: TwilioSourceConfig[];
  channels: ChannelConfig[];
  /** Skill files: absolute path and text. */
  skills: Array<{ path: string; text: string }>;
}

/** An agent's sources that answer people rather than alert senders (§18.2, §18.6, §21.4), each on a listener of its own. */
export function answerSourcesOf(agent: Pick<LoadedAgent, 'ackSource' | 'slackSource' | 'twilioSources'>): Array<AckSourceConfig | SlackSourceConfig | TwilioSourceConfig> {
  return [...(agent.ackSource ? [agent.ackSource] : []), ...(agent.slackSource ? [agent.slackSource] : []), ...(agent.twilioSources ?? [])];
}
