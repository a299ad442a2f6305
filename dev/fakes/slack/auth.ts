/** Web API methods about tokens: api.test, auth.test, auth.revoke, and Socket Mode's apps.connections.open. */
import { err, identityOf, type Method, nextId, type SlackState } from './state.ts';

export function authMethods(s: SlackState): Record<string, Method> {
  return {
    'api.test': (args) => ({ body: { ok: true, args } }),
    'auth.test': (_args, token) => {
      const id = identityOf(s, token);
      if (typeof id === 'string') return err(id);
      return {
        body: {
          ok: true,
          url: `https://${(id.teamName ?? id.teamId).toLowerCase()}.slack.com/`,
          team: id.teamName ?? id.teamId,
          user: 'mergequeue',
          team_id: id.teamId,
          user_id: id.userId,
          bot_id: id.botId,
          enterprise_id: id.enterpriseId,
          is_enterprise_install: id.isEnterpriseInstall === true,
        },
      };
    },
    'apps.connections.open': () => ({
      body: { ok: true, url: `ws://127.0.0.1:${s.port}/socket-mode?ticket=${nextId(s, 'W')}` },
    }),
    'auth.revoke': (_args, token) => {
      if (token) s.revoked.add(token);
      return { body: { ok: true, revoked: true } };
    },
  };
}
