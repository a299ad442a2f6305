/** The environment of an app process in a benchmark: the fakes and database of this run, fresh secrets. */
import { randomBytes } from 'node:crypto';

export function benchAppEnv(
  at: { slackUrl: string; trunkUrl: string; databaseUrl: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_API_URL: at.slackUrl,
    TRUNK_API_URL: at.trunkUrl,
    TRUNK_API_TOKEN: 'bench-token',
    TRUNK_ORG_SLUG: 'acme',
    DATABASE_URL: at.databaseUrl,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    // The harness waits for the URL the app logs at info level.
    LOG_LEVEL: 'info',
    SCHEDULER_ENABLED: 'true',
    ...extra,
  };
}
