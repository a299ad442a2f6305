/**
 * The queue domain's `Directory` (who is an admin, who is in a user group) read from Slack with
 * users.info and usergroups.users.list, cached briefly per workspace: a burst of clicks costs one lookup,
 * and a demoted admin loses the right within the TTL. Failures are not cached (the domain fails closed).
 */
import type { WebClient } from '@slack/web-api';
import type { PersonFacts } from '../queue/membership.ts';
import type { Directory, DirectoryUser } from '../queue/permissions.ts';
import { slackAnswer } from './api-errors.ts';

export const DIRECTORY_TTL_MS = 60_000;
/** conversations.members pages read at most (1000 each): a bigger channel is checked no further. */
const MAX_MEMBER_PAGES = 20;

/** The queue domain's Directory, plus what digests need to know about channels. */
export interface SlackDirectory extends Directory {
  /** Whether the user is a member of the channel (conversations.members); false when Slack will not say. */
  isChannelMember(channelId: string, userId: string): Promise<boolean>;
  /** Whether the channel is public (conversations.info); false for private or unknown channels. */
  isPublicChannel(channelId: string): Promise<boolean>;
}

type SlackUser = NonNullable<Awaited<ReturnType<WebClient['users']['info']>>['user']> & {
  is_stranger?: boolean;
  enterprise_id?: string;
  enterprise_user?: { is_admin?: boolean; is_owner?: boolean };
};

/** The users.info fields that say whose person someone is (queue/membership.ts decides from them). */
function personFacts(u: SlackUser): PersonFacts {
  const out: PersonFacts = {};
  if (u.team_id) out.teamId = u.team_id;
  const enterpriseId = u.enterprise_user?.enterprise_id ?? u.enterprise_id;
  if (enterpriseId) out.enterpriseId = enterpriseId;
  if (u.enterprise_user?.teams?.length) out.teams = u.enterprise_user.teams;
  if (u.is_restricted) out.isRestricted = true;
  if (u.is_ultra_restricted) out.isUltraRestricted = true;
  if (u.deleted) out.deleted = true;
  if (u.is_bot || u.is_app_user) out.isBot = true;
  if (u.is_stranger) out.isStranger = true;
  if (u.enterprise_user?.is_admin) out.isEnterpriseAdmin = true;
  if (u.enterprise_user?.is_owner) out.isEnterpriseOwner = true;
  return out;
}

interface Entry<T> {
  value: Promise<T>;
  expires: number;
}

export interface DirectoryCache {
  /** A Directory for one workspace, reading through `client` (the request's bot token). */
  forWorkspace(workspaceId: string, client: WebClient): SlackDirectory;
  clear(): void;
}

export function createDirectoryCache(opts: { ttlMs?: number; now?: () => number } = {}): DirectoryCache {
  const ttl = opts.ttlMs ?? DIRECTORY_TTL_MS;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry<unknown>>();

  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = entries.get(key) as Entry<T> | undefined;
    if (hit && hit.expires > now()) return hit.value;
    const value = load();
    entries.set(key, { value, expires: now() + ttl });
    // Errors are not remembered: the next call asks Slack again.
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    if (entries.size > 10_000) {
      for (const [k, e] of entries) if (e.expires <= now()) entries.delete(k);
    }
    return value;
  }

  return {
    forWorkspace(workspaceId, client) {
      return {
        getUser(userId) {
          return cached(`${workspaceId}:u:${userId}`, async (): Promise<DirectoryUser | undefined> => {
            try {
              const res = await client.users.info({ user: userId });
              const u = res.user as SlackUser | undefined;
              if (!u?.id) return undefined;
              const out: DirectoryUser = {
                id: u.id,
                isAdmin: Boolean(u.is_admin),
                isOwner: Boolean(u.is_owner || u.is_primary_owner),
                ...personFacts(u),
              };
              if (u.tz) out.tz = u.tz;
              const name = u.profile?.display_name || u.real_name || u.name;
              if (name) out.name = name;
              return out;
            } catch (err) {
              if (slackAnswer(err) === 'user_not_found') return undefined;
              throw err;
            }
          });
        },
        workspaceEnterpriseId() {
          // auth.test with the workspace's bot token names its Grid organization, if any.
          return cached(`${workspaceId}:enterprise`, async () => (await client.auth.test()).enterprise_id);
        },
        usergroupMembers(groupId) {
          return cached(`${workspaceId}:g:${groupId}`, async () => {
            const res = await client.usergroups.users.list({ usergroup: groupId });
            return res.users ?? [];
          });
        },
        async isChannelMember(channelId, userId) {
          try {
            const members = await cached(`${workspaceId}:m:${channelId}`, async () => {
              const all = new Set<string>();
              let cursor = '';
              for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
                const res = await client.conversations.members({
                  channel: channelId,
                  limit: 1000,
                  ...(cursor ? { cursor } : {}),
                });
                for (const m of res.members ?? []) all.add(m);
                cursor = res.response_metadata?.next_cursor ?? '';
                if (!cursor) break;
              }
              return all;
            });
            return members.has(userId);
          } catch {
            // A channel the bot cannot see (private, not invited) or Slack down: not shown, not allowed.
            return false;
          }
        },
        async isPublicChannel(channelId) {
          try {
            const info = await cached(`${workspaceId}:c:${channelId}`, () =>
              client.conversations.info({ channel: channelId }),
            );
            const c = info.channel;
            return Boolean(c && !c.is_private && !c.is_im && !c.is_mpim && !c.is_group);
          } catch {
            return false;
          }
        },
      };
    },
    clear: () => entries.clear(),
  };
}
