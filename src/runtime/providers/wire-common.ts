/** Small pieces both wire formats share. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `https://host/v1` + `/chat/completions`, whatever trailing slash the configuration has. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** A usage count as a non-negative integer; anything else counts as 0 (some compatible servers omit usage). */
export function usageNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

/**
 * The error of a non-2xx body, in both vendors' shapes: Anthropic `{type:"error", error:{type, message}}`,
 * OpenAI `{error:{message, type, code}}`. `type` is kept only when it is a short token (it goes into
 * svc's own error texts); `message` is the provider's free text, for the agent log only.
 */
export function providerError(body: unknown): { type: string | null; message: string | null } {
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  if (!error) return { type: null, message: null };
  const token = (v: unknown): string | null => (typeof v === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(v) ? v : null);
  return {
    type: token(error.type) ?? token(error.code),
    message: typeof error.message === 'string' ? error.message : null,
  };
}
