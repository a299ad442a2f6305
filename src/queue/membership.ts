/**
 * Whether a person is one of the workspace's own people: the only people who may ever operate, whatever a
 * list says. Slack Connect puts people of other organizations in shared channels, where they can type
 * commands and click buttons; their own organization may call them admin. Guests, deactivated accounts
 * and bots are never operators either. Pure: decided from users.info as read by the caller.
 */

/** What users.info tells about who someone is (slack/directory.ts reads it). */
export interface PersonFacts {
  /** users.info `team_id`: the person's home team (for Grid users often the org's id). */
  teamId?: string;
  /** users.info `enterprise_user.enterprise_id` (or `enterprise_id`): their Enterprise Grid org. */
  enterpriseId?: string;
  /** users.info `enterprise_user.teams`: the Grid workspaces they belong to. */
  teams?: readonly string[];
  /** Multi-channel guest (`is_restricted`). */
  isRestricted?: boolean;
  /** Single-channel guest (`is_ultra_restricted`). */
  isUltraRestricted?: boolean;
  /** Deactivated account (`deleted`). */
  deleted?: boolean;
  isBot?: boolean;
  /** Slack's flag for a person of another organization seen through a shared channel (`is_stranger`). */
  isStranger?: boolean;
  /** Enterprise Grid: an admin of the whole organization (`enterprise_user.is_admin`). */
  isEnterpriseAdmin?: boolean;
  /** Enterprise Grid: an owner of the whole organization (`enterprise_user.is_owner`). */
  isEnterpriseOwner?: boolean;
}

export const STRANGER =
  'people of another organization are never operators here, whatever their own organization calls them';
export const OTHER_GRID_WORKSPACE =
  'you belong to this Enterprise Grid organization but not to this workspace, and only its own members may change its queues';

/**
 * Why `person` is not one of `workspaceId`'s own people, or undefined when they are. `workspaceId` is the
 * team id, or the enterprise id for an org-wide install (then every member of the enterprise counts).
 * `payloadTeamId` is the user's team as the request itself said (block_actions `user.team_id`), when given.
 * `workspaceEnterpriseId`, the Enterprise Grid organization a workspace install belongs to, when known, lets
 * a member of that organization who is not in this workspace be told exactly that.
 */
export function whyNotOwnPerson(
  person: PersonFacts,
  workspaceId: string,
  payloadTeamId?: string,
  workspaceEnterpriseId?: string,
): string | undefined {
  if (person.deleted) return 'deactivated accounts are never operators';
  if (person.isBot) return 'bots are never operators';
  if (person.isRestricted || person.isUltraRestricted) return 'guests are never operators';
  const homes = new Set<string>([...(person.teams ?? [])]);
  if (person.teamId) homes.add(person.teamId);
  if (person.enterpriseId) homes.add(person.enterpriseId);
  const sameGrid =
    !person.isStranger &&
    Boolean(workspaceEnterpriseId) &&
    person.enterpriseId === workspaceEnterpriseId &&
    workspaceId !== workspaceEnterpriseId;
  const stranger = sameGrid ? OTHER_GRID_WORKSPACE : STRANGER;
  if (person.isStranger || !homes.has(workspaceId)) return stranger;
  if (payloadTeamId && payloadTeamId !== workspaceId && !homes.has(payloadTeamId)) return stranger;
  return undefined;
}
