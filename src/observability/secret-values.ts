/**
 * The secret values of a configuration, for the logger to remove wherever they appear (see
 * secretValueScrubber in log.ts). Workspace tokens stored at run time are caught by their shape.
 */
import type { Config } from '../config.ts';

export function configuredSecrets(config: Config): string[] {
  const { slack, trunk, database } = config;
  const values = [
    slack.signingSecret,
    slack.clientSecret,
    slack.stateSecret,
    slack.botToken,
    slack.appToken,
    trunk.token,
    trunk.v2Key,
    ...(trunk.webhookSecrets ?? []),
  ];
  // Logged keys could come from any spelling of ENCRYPTION_KEY.
  for (const key of config.encryptionKeys) values.push(key.toString('base64'), key.toString('base64url'));
  if (database.kind === 'postgres') {
    const password = safePassword(database.url);
    if (password) values.push(password, decodeOrSame(password));
  }
  return values.filter((v): v is string => typeof v === 'string' && v.length > 0);
}

function safePassword(url: string): string | undefined {
  try {
    return new URL(url).password || undefined;
  } catch {
    return undefined;
  }
}

function decodeOrSame(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
