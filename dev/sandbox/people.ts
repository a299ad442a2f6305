/** Who is in the sandbox's pretend workspace. Ids look like Slack's so the app treats them as real. */
import type { FakeUser } from '../fakes/slack/server.ts';

export const TEAM_ID = 'T0SANDBOX1';
export const TEAM_DOMAIN = 'acme-sandbox';
export const CHANNEL_ID = 'C0MERGEQ01';
export const CHANNEL_NAME = 'merge-queue';
export const BOT_USER_ID = 'U0MQBOT001';
export const BOT_ID = 'B0MQBOT001';
export const BOT_NAME = 'mergequeue';
export const APP_ID = 'A0SANDBOX1';

export type Role = 'operator' | 'member';

export interface SandboxUser {
  id: string;
  /** Slack handle. */
  handle: string;
  name: string;
  role: Role;
  isAdmin: boolean;
  /** The GitHub login the seed links them to (authors of PRs in the Trunk fake get notes). */
  github: string;
}

/** An operator (a workspace admin, so the app lets them change queues) and a regular member. */
export const USERS: Record<Role, SandboxUser> = {
  operator: {
    id: 'U0MAYA0001',
    handle: 'maya.chen',
    name: 'Maya Chen',
    role: 'operator',
    isAdmin: true,
    github: 'maya-chen',
  },
  member: {
    id: 'U0SAM00001',
    handle: 'sam.ortiz',
    name: 'Sam Ortiz',
    role: 'member',
    isAdmin: false,
    github: 'sam-ortiz',
  },
};

export function roleOf(value: unknown): Role {
  return value === 'member' ? 'member' : 'operator';
}

export function fakeUser(u: SandboxUser, tz: string): FakeUser {
  return { id: u.id, name: u.handle, realName: u.name, isAdmin: u.isAdmin, tz, teamId: TEAM_ID };
}
