/**
 * Whether the app may still act in a workspace on its own initiative (freeze windows, queue feeds): not
 * after Slack revoked its bot token (tokens_revoked naming our bot), until a re-install. With OAuth the
 * revocation deletes the installation (slack/revocation.ts), so the answer is whether one is stored; a
 * re-install stores a new one and the work resumes at the next pass. In single-workspace mode the
 * configured SLACK_BOT_TOKEN is asked (auth.test, remembered for a short while): once Slack refuses it as
 * revoked, nothing acts until the app runs with a new token.
 */
import type { Config } from '../config.ts';
import { errorCode } from '../slack/api-errors.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';

/** auth.test answers these when the token it was called with no longer works. */
const DEAD_TOKEN = new Set(['token_revoked', 'invalid_auth', 'account_inactive', 'not_authed']);
export const BOT_STANDING_TTL_MS = 30_000;

export interface BotStandingOptions {
  config: Pick<Config, 'slack'>;
  store: Pick<Store, 'installations'>;
  workspaces: Pick<Workspaces, 'slackFor'>;
  ttlMs?: number;
}

/** True while the workspace's bot token stands; a Slack that cannot be asked counts as standing. */
export type BotStanding = (workspaceId: string) => Promise<boolean>;

export function botStanding(o: BotStandingOptions): BotStanding {
  if (o.config.slack.mode === 'oauth')
    return async (workspaceId) => (await o.store.installations.load(workspaceId))?.botToken !== undefined;
  const ttl = o.ttlMs ?? BOT_STANDING_TTL_MS;
  const known = new Map<string, { standing: boolean; until: number }>();
  return async (workspaceId) => {
    const hit = known.get(workspaceId);
    if (hit && hit.until > Date.now()) return hit.standing;
    let standing = true;
    try {
      await (await o.workspaces.slackFor(workspaceId)).auth.test();
    } catch (err) {
      standing = !DEAD_TOKEN.has(errorCode(err));
    }
    known.set(workspaceId, { standing, until: Date.now() + ttl });
    return standing;
  };
}
