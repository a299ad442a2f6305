/**
 * Trunk API v2 authentication: an API key (`trunk_v2_…`) as a bearer token. v1's organization token is never
 * sent to v2 (Trunk's current docs: v1 tokens do not work there, and keys do not work on v1), so a workspace
 * using both holds two secrets.
 */
import type { TrunkAuth } from '../auth.ts';

/** The prefix Trunk gives every v2 API key. */
export const V2_KEY_PREFIX = 'trunk_v2_';

export function apiKeyAuth(key: string): TrunkAuth {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new TypeError('apiKeyAuth: the Trunk v2 API key is empty');
  }
  return {
    headers: () => ({ authorization: `Bearer ${key}` }),
    secrets: () => [key],
  };
}

/** Whether a string looks like a v2 API key (what `connect` checks before asking Trunk). */
export function looksLikeV2Key(value: string): boolean {
  return value.startsWith(V2_KEY_PREFIX) && value.length > V2_KEY_PREFIX.length && !/\s/.test(value);
}
