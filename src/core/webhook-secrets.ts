/**
 * The shape of a Trunk webhook signing secret (Svix / Standard Webhooks): `whsec_` followed by base64 of the
 * HMAC key. Checked where a secret enters the app (TRUNK_WEBHOOK_SECRET, the connect modal, the store), so a
 * typo is named at once rather than turning every delivery into a 401. Messages never echo the value.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Splits a list typed by a person or set in the environment: commas, spaces or newlines between secrets. */
export function splitWebhookSecrets(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((s) => s !== ''))];
}

/** Whether `secret` is `whsec_<base64>` whose key decodes to at least one byte. */
export function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const b64 = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 === 1) return false;
  return Buffer.from(b64, 'base64').length > 0;
}

/** The problem with a list of secrets, in words naming the position (never the value); undefined when fine. */
export function webhookSecretsProblem(secrets: readonly string[]): string | undefined {
  const bad = secrets.map((s, i) => (isWebhookSecret(s) ? 0 : i + 1)).filter((n) => n > 0);
  if (bad.length === 0) return undefined;
  const which = secrets.length === 1 ? 'it' : `number ${bad.join(', ')} of the list`;
  return `each secret must be a Trunk webhook signing secret "whsec_…" (base64 after the prefix), as the endpoint's page in Trunk shows it; ${which} is not`;
}
