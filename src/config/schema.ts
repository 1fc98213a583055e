/**
 * Schemas of agent.yaml, event-sources.yaml and channels.yaml (contract §2a). Strict: unknown keys are
 * rejected. Values arrive here with `${env:…}`, `${file:…}` and `${secret:…}` already resolved.
 */
import { z } from 'zod';

export const ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const id = z.string().regex(ID_PATTERN, 'must match ^[a-z0-9][a-z0-9._-]{0,63}$');
const port = z.number().int().min(1).max(65535);
const headerName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name');
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const PROVIDERS = ['rules', 'anthropic', 'openai'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

const dispatchSchema = z.strictObject({
  /** Deliveries tried before an event is dead-lettered. */
  maxAttempts: z.number().int().min(1).max(20).default(5),
  initialBackoffMs: z.number().int().min(1).max(60_000).default(500),
  maxBackoffMs: z.number().int().min(1).max(600_000).default(30_000),
  /** Events of this agent handled at once. */
  concurrency: z.number().int().min(1).max(64).default(4),
});

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
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be a scope token')).default([]),
    allowLoopback: z.boolean().default(true),
    tokenEndpoint: httpUrl.optional(),
    clientId: z.string().min(1).max(256).optional(),
    clientSecretRef: z.string().regex(SECRET_REF_PATTERN, 'must be a reference: env:NAME, file:PATH or secret:PATH').optional(),
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

export const agentSchema = z.strictObject({
  id,
  provider: z.enum(PROVIDERS),
  model: z.string().min(1).optional(),
  baseUrl: httpUrl.optional(),
  skills: z.array(z.string().min(1)).default([]),
  controlPlane: z
    .strictObject({
      bind: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(9464),
      auth: authBlockSchema.optional(),
    })
    .optional(),
  dispatch: dispatchSchema.default({ maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 4 }),
});
export type AgentConfig = z.infer<typeof agentSchema>;
export type DispatchConfig = z.infer<typeof dispatchSchema>;

export const webhookSourceSchema = z.strictObject({
  id,
  type: z.literal('webhook'),
  port,
  bind: z.string().min(1).default('127.0.0.1'),
  secret: z.string().min(16, 'must be at least 16 characters'),
  fingerprintHeader: headerName.default('X-Alert-Fingerprint'),
  signatureHeader: headerName.default('X-Signature'),
  timestampHeader: headerName.optional(),
});
export type WebhookSourceConfig = z.infer<typeof webhookSourceSchema>;

export const sourcesFileSchema = z.strictObject({
  sources: z.array(webhookSourceSchema).min(1),
});

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
export const slackChannelSchema = z.strictObject({
  id,
  type: z.literal('slack'),
  direction,
  token: z.string().min(1),
  user: z.string().min(1),
  apiUrl: httpUrl.default('https://slack.com/api'),
  ...retry,
});
export const webhookChannelSchema = z.strictObject({
  id,
  type: z.literal('webhook'),
  direction,
  url: httpUrl,
  to: z.string().min(1).default('on-call'),
  ...retry,
});
export const channelSchema = z.discriminatedUnion('type', [fileChannelSchema, slackChannelSchema, webhookChannelSchema]);
export type ChannelConfig = z.infer<typeof channelSchema>;
export type FileChannelConfig = z.infer<typeof fileChannelSchema>;
export type SlackChannelConfig = z.infer<typeof slackChannelSchema>;
export type WebhookChannelConfig = z.infer<typeof webhookChannelSchema>;

export const channelsFileSchema = z.strictObject({
  channels: z.array(channelSchema).min(1),
});

/** Keys that must hold a `${…}` reference, never a literal secret (file, dotted key path). */
export const SECRET_KEYS: ReadonlyArray<{ file: string; path: RegExp }> = [
  { file: 'event-sources.yaml', path: /^sources\.\d+\.secret$/ },
  { file: 'channels.yaml', path: /^channels\.\d+\.token$/ },
];

/** Everything `svc up` needs about one agent directory, references resolved, paths absolute. */
export interface LoadedAgent {
  dir: string;
  agent: AgentConfig;
  sources: WebhookSourceConfig[];
  channels: ChannelConfig[];
  /** Skill files: absolute path and text. */
  skills: Array<{ path: string; text: string }>;
}
