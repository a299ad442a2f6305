/** Web API methods about people: users.info (with the flags permissions read) and usergroups.users.list. */
import { err, type Method, type SlackState, str } from './state.ts';
import type { FakeUser } from './types.ts';

function userJson(s: SlackState, u: FakeUser) {
  return {
    id: u.id,
    team_id: u.teamId ?? s.defaultTeamId,
    name: u.name ?? u.id.toLowerCase(),
    real_name: u.realName ?? u.name ?? u.id,
    deleted: u.deleted ?? false,
    is_admin: u.isAdmin ?? false,
    is_owner: u.isOwner ?? false,
    is_primary_owner: false,
    is_bot: u.isBot ?? false,
    is_restricted: u.isRestricted ?? false,
    is_ultra_restricted: u.isUltraRestricted ?? false,
    ...(u.isStranger ? { is_stranger: true } : {}),
    ...(u.enterpriseId
      ? {
          enterprise_user: {
            id: u.id,
            enterprise_id: u.enterpriseId,
            is_admin: u.enterpriseAdmin ?? false,
            is_owner: u.enterpriseOwner ?? false,
            teams: u.teams ?? [u.teamId ?? s.defaultTeamId],
          },
        }
      : {}),
    tz: u.tz ?? 'UTC',
    tz_label: u.tz ?? 'UTC',
    tz_offset: 0,
    profile: { real_name: u.realName ?? u.name ?? u.id, display_name: u.name ?? '' },
  };
}

export function userMethods(s: SlackState): Record<string, Method> {
  return {
    'users.info': (args) => {
      const id = str(args['user']);
      const u = id ? s.users.get(id) : undefined;
      if (!u) return err('user_not_found');
      return { body: { ok: true, user: userJson(s, u) } };
    },
    'usergroups.users.list': (args) => {
      const id = str(args['usergroup']);
      const members = id ? s.usergroups.get(id) : undefined;
      if (!members) return err('no_such_subteam');
      return { body: { ok: true, users: [...members] } };
    },
  };
}
