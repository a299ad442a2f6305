/**
 * The authentication seam. v1 sends `x-api-token`; Trunk's v2 API uses `Authorization: Bearer …`, which
 * would be one more implementation of this interface, leaving the client untouched.
 */
export interface TrunkAuth {
  /** Headers that authenticate one request. */
  headers(): Record<string, string>;
  /**
   * Secret values that must never appear in error text; the client scrubs them from anything it keeps.
   * When absent, every header value from `headers()` is treated as secret.
   */
  secrets?(): readonly string[];
}

/** Trunk API v1: the organization's API token in the `x-api-token` header. */
export function apiTokenAuth(token: string): TrunkAuth {
  if (typeof token !== 'string' || token.trim() === '') {
    // Says what is wrong without echoing the value.
    throw new TypeError('apiTokenAuth: the Trunk API token is empty');
  }
  return {
    headers: () => ({ 'x-api-token': token }),
    secrets: () => [token],
  };
}

/** Replace every occurrence of each secret in `text` (used on bodies and messages we keep). */
export function scrubTokens(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length > 0) out = out.split(s).join('[redacted]');
  }
  return out;
}
