/**
 * The queue domain's `Directory` (who is an admin, who is in a user group) read from Slack with
 * users.info and usergroups.users.list, cached briefly per workspace: a burst of clicks costs one lookup,
 * and a demoted admin loses the right within the TTL. Failures are not cached (the domain fails closed).
 */
import type { WebClient } from '@slack/web-api';
import type { Directory, DirectoryUser } from '../queue/permissions.ts';
import { slackAnswer } from './api-errors.ts';

export const DIRECTORY_TTL_MS = 60_000;

interface Entry<T> {
  value: Promise<T>;
  expires: number;
}

export interface DirectoryCache {
  /** A Directory for one workspace, reading through `client` (the request's bot token). */
  forWorkspace(workspaceId: string, client: WebClient): Directory;
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
              const u = res.user;
              if (!u?.id) return undefined;
              const out: DirectoryUser = {
                id: u.id,
                isAdmin: Boolean(u.is_admin),
                isOwner: Boolean(u.is_owner || u.is_primary_owner),
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
        usergroupMembers(groupId) {
          return cached(`${workspaceId}:g:${groupId}`, async () => {
            const res = await client.usergroups.users.list({ usergroup: groupId });
            return res.users ?? [];
          });
        },
      };
    },
    clear: () => entries.clear(),
  };
}
