/**
 * tokens_revoked: delete exactly what was revoked. Slack names user ids, never tokens: `oauth` lists the
 * users whose user tokens were revoked, `bot` the bot users whose bot tokens were. A named user's token
 * is forgotten; the bot token, and what only works with it (digests post as the bot), only when *our* bot
 * user of that workspace is named. Trunk credentials, defaults and operators stay either way, so a
 * re-install picks up where the workspace was. A revocation naming nobody we hold changes nothing.
 * While the bot token is gone, freeze windows do not act and feeds do not poll, although the Trunk token is
 * kept (src/workers/bot-standing.ts): with OAuth, because no installation is stored until a re-install; in
 * single-workspace mode, because Slack refuses the configured token.
 */
import type { WebClient } from '@slack/web-api';
import { errorCode } from './api-errors.ts';
import type { SlackDeps } from './deps.ts';

export interface RevokedTokens {
  oauth?: string[] | undefined;
  bot?: string[] | undefined;
}

export interface RevocationOutcome {
  userTokensForgotten: number;
  botTokenForgotten: boolean;
}

/** auth.test answers these when the token it was called with no longer works. */
const DEAD_TOKEN = new Set(['token_revoked', 'invalid_auth', 'account_inactive', 'not_authed']);

/**
 * Our bot user in that workspace: the stored installation's (OAuth mode), or who the configured
 * SLACK_BOT_TOKEN is (single-workspace mode). `dead` when that token is already refused.
 */
async function ourBot(
  deps: SlackDeps,
  workspaceId: string,
  client: () => Promise<WebClient>,
): Promise<{ userId?: string; dead?: true }> {
  if (deps.settings.mode === 'oauth') {
    const userId = await deps.tokens.botUserId(workspaceId);
    return userId ? { userId } : {};
  }
  try {
    const who = await (await client()).auth.test();
    // The configured token belongs to one workspace; a revocation for another is not about it.
    if (who.team_id && who.team_id !== workspaceId && who.enterprise_id !== workspaceId) return {};
    return who.user_id ? { userId: who.user_id } : {};
  } catch (err) {
    return DEAD_TOKEN.has(errorCode(err)) ? { dead: true } : {};
  }
}

export async function applyRevocation(
  deps: SlackDeps,
  workspaceId: string,
  tokens: RevokedTokens,
  client: () => Promise<WebClient>,
): Promise<RevocationOutcome> {
  const users = tokens.oauth ?? [];
  const bots = tokens.bot ?? [];
  const userTokensForgotten = users.length ? await deps.tokens.revokeUserTokens(workspaceId, users) : 0;
  let botTokenForgotten = false;
  if (bots.length > 0) {
    const bot = await ourBot(deps, workspaceId, client);
    if (bot.dead || (bot.userId && bots.includes(bot.userId))) {
      await deps.tokens.deleteBotData(workspaceId);
      deps.workspaces.invalidate(workspaceId);
      botTokenForgotten = true;
    }
  }
  deps.logger.info(
    {
      workspaceId,
      namedUsers: users.length,
      namedBots: bots.length,
      userTokensForgotten,
      botTokenForgotten,
    },
    botTokenForgotten
      ? 'tokens_revoked: bot token and digests deleted; freeze windows and feeds wait for a re-install; Trunk token, defaults and operators kept'
      : 'tokens_revoked: nothing of this workspace needs the revoked tokens beyond what was forgotten',
  );
  return { userTokensForgotten, botTokenForgotten };
}
