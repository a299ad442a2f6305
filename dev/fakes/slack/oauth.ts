/** oauth.v2.access: the install exchange (bot, user and rotating tokens) and the refresh of a rotating token. */
import { err, type Method, type SlackState, str } from './state.ts';

function issueInstallTokens(s: SlackState, teamId: string) {
  const n = (++s.seq).toString(36);
  const token = s.installation.tokenRotation ? `xoxe.xoxb-1-${teamId}-${n}` : `xoxb-${teamId}-${n}`;
  const refreshToken = s.installation.tokenRotation ? `xoxe-1-${teamId}-${n}` : undefined;
  s.tokens.set(token, {
    teamId,
    teamName: s.installation.teamName ?? teamId,
    ...(s.installation.enterpriseId ? { enterpriseId: s.installation.enterpriseId } : {}),
    ...(s.installation.orgWide ? { isEnterpriseInstall: true } : {}),
    userId: s.installation.botUserId ?? 'U0BOTINST',
    botId: s.installation.botId ?? 'B0BOTINST',
  });
  if (refreshToken) s.refreshTokens.set(refreshToken, teamId);
  s.issuedTokens.push(refreshToken ? { token, refreshToken, teamId } : { token, teamId });
  return { token, refreshToken };
}

export function oauthMethods(s: SlackState): Record<string, Method> {
  return {
    'oauth.v2.access': (args) => {
      if (s.clientId && str(args['client_id']) !== s.clientId) return err('invalid_client_id');
      if (s.clientSecret && str(args['client_secret']) !== s.clientSecret) return err('bad_client_secret');
      const grant = str(args['grant_type']);
      if (grant === 'refresh_token') {
        const rt = str(args['refresh_token']);
        const teamId = rt ? s.refreshTokens.get(rt) : undefined;
        if (!rt || !teamId) return err('invalid_refresh_token');
        s.refreshTokens.delete(rt);
        const t = issueInstallTokens(s, teamId);
        return {
          body: {
            ok: true,
            token_type: 'bot',
            access_token: t.token,
            refresh_token: t.refreshToken,
            expires_in: s.installation.expiresInSeconds ?? 43_200,
            team: { id: teamId },
          },
        };
      }
      const code = str(args['code']);
      if (!code) return err('invalid_code');
      const inst = s.installation;
      const orgWide = inst.orgWide === true && inst.enterpriseId !== undefined;
      const t = issueInstallTokens(s, orgWide ? inst.enterpriseId! : inst.teamId);
      const installer = inst.installerUserId ?? 'U0INSTALLER';
      const authedUser: Record<string, unknown> = { id: installer };
      if (inst.userToken) {
        const userToken = `xoxp-${inst.teamId}-${(++s.seq).toString(36)}`;
        s.tokens.set(userToken, {
          teamId: orgWide ? inst.enterpriseId! : inst.teamId,
          userId: installer,
          botId: '',
        });
        Object.assign(authedUser, { scope: 'identify', access_token: userToken, token_type: 'user' });
      }
      const body: Record<string, unknown> = {
        ok: true,
        app_id: inst.appId ?? 'A0FAKEAPP',
        authed_user: authedUser,
        scope:
          inst.scope ??
          'commands,chat:write,chat:write.public,users:read,usergroups:read,channels:read,groups:read,links:read,links:write',
        token_type: 'bot',
        access_token: t.token,
        bot_user_id: inst.botUserId ?? 'U0BOTINST',
        // Slack's documented org-wide answer has no team: the app is not yet in any workspace.
        team: orgWide ? null : { id: inst.teamId, name: inst.teamName ?? inst.teamId },
        enterprise: inst.enterpriseId
          ? { id: inst.enterpriseId, name: inst.teamName ?? inst.enterpriseId }
          : null,
        is_enterprise_install: orgWide,
      };
      if (t.refreshToken) {
        body['refresh_token'] = t.refreshToken;
        body['expires_in'] = inst.expiresInSeconds ?? 43_200;
      }
      return { body };
    },
  };
}
