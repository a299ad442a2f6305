/**
 * Checks on Trunk credentials typed into `/mergequeue connect`, before anything is stored.
 * Each problem names the field and says what to type instead; values are never echoed (the token is secret).
 */
import type { TrunkCredentials } from './types.ts';

export type CredentialField = 'token' | 'orgSlug';

export type CredentialCheck =
  | { ok: true; value: TrunkCredentials }
  | { ok: false; errors: Array<{ field: CredentialField; message: string }> };

const ORG_SLUG_RE = /^[A-Za-z0-9_.-]{1,200}$/;

export function checkTrunkCredentials(input: { token?: unknown; orgSlug?: unknown }): CredentialCheck {
  const errors: Array<{ field: CredentialField; message: string }> = [];
  const token = typeof input.token === 'string' ? input.token.trim() : '';
  const orgSlug = typeof input.orgSlug === 'string' ? input.orgSlug.trim() : '';
  if (token === '')
    errors.push({
      field: 'token',
      message: 'Paste the Trunk API token from Trunk → Settings → Organization → API.',
    });
  else if (/\s/.test(token) || token.length > 1024)
    errors.push({
      field: 'token',
      message:
        'That is not a Trunk API token: it must be one word without spaces. Copy it again from Trunk settings.',
    });
  if (orgSlug === '')
    errors.push({
      field: 'orgSlug',
      message: 'Type the organization slug shown in Trunk settings, for example acme.',
    });
  else if (!ORG_SLUG_RE.test(orgSlug))
    errors.push({
      field: 'orgSlug',
      message:
        'The organization slug may use only letters, digits, "-", "_" and ".", as shown in Trunk settings.',
    });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { token, orgSlug } };
}

/** Thrown by the store for input that fails these checks; nothing is stored. */
export class InvalidStoreInputError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join(' '));
    this.name = 'InvalidStoreInputError';
    this.problems = problems;
  }
}
