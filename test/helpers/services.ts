/**
 * What the service tests (test/services/) hand a service in place of the Slack side: Trunk access that
 * answers with one given client (or none: not connected), the deployment's defaults, and the real Actor
 * over an in-memory directory of people and channels.
 */
import type { DirectoryUser } from '../../src/queue/permissions.ts';
import { createActor } from '../../src/services/actor.ts';
import type { DeploymentDefaults, TrunkAccess, WorkspaceTrunk } from '../../src/services/ports.ts';
import type { Store } from '../../src/store/types.ts';

/** Per-workspace Trunk access that gives every workspace `trunk` (undefined: none is connected); no v2. */
export function trunkAccess(trunk: () => WorkspaceTrunk | undefined): TrunkAccess {
  return {
    trunkFor: async () => trunk(),
    v2For: async () => undefined,
    v2WithKey: () => ({}) as never,
    readsFor: async () => trunk(),
    trunkWithToken: () => trunk()?.api ?? ({} as never),
    invalidate: () => {},
  };
}

/** Single-workspace defaults with no DEFAULT_REPO and no ENCRYPTION_KEY; `over` changes some. */
export function deploymentDefaults(over: Partial<DeploymentDefaults> = {}): () => DeploymentDefaults {
  return () => ({
    defaultTarget: undefined,
    mode: 'single',
    hasEnvTrunkToken: false,
    envOrgSlug: undefined,
    canStoreSecrets: false,
    auditRetentionDays: 90,
    ...over,
  });
}

export interface DirectoryOf {
  workspaceId: string;
  people: DirectoryUser[];
  now: () => number;
  /** Who is in each channel; default nobody. */
  members?: Record<string, string[]>;
  /** Which channels are public; default none. */
  isPublic?: (channel: string) => boolean;
}

/** The real Actor of `userId` (services/actor.ts) over an in-memory directory. */
export function actorOf(store: Store, userId: string, d: DirectoryOf) {
  return createActor({
    workspace: { id: d.workspaceId, install: 'single' },
    userId,
    now: d.now,
    store,
    directory: {
      getUser: async (id) => d.people.find((u) => u.id === id),
      usergroupMembers: async () => [],
      isChannelMember: async (c, u) => (d.members?.[c] ?? []).includes(u),
      isPublicChannel: async (c) => d.isPublic?.(c) ?? false,
    },
  });
}
