/**
 * Who may change a queue. Trunk sees one API token per workspace, so the app decides: workspace admins and
 * owners (of the Enterprise Grid organization too, for an org-wide install), the user who installed the app,
 * and the users and user groups listed with `config operators` — and only ever among the workspace's own
 * people (membership.ts): never a guest, a deactivated account, a bot or a person of another organization,
 * whatever a list names them.
 * Anyone may read. When a fact cannot be checked (Slack unreachable) the answer is no: fail closed.
 */
import type { Operator, Store } from '../store/types.ts';
import { type PersonFacts, whyNotOwnPerson } from './membership.ts';

export interface DirectoryUser extends PersonFacts {
  id: string;
  isAdmin: boolean;
  isOwner: boolean;
  tz?: string;
  name?: string;
}

/** Slack's view of people; slack-app implements it with users.info and usergroups.users.list. */
export interface Directory {
  getUser(userId: string): Promise<DirectoryUser | undefined>;
  usergroupMembers(groupId: string): Promise<string[]>;
  /** Optional: resolve a bare `@name` typed without Slack's mention escaping. */
  findByName?(name: string): Promise<{ kind: 'user' | 'usergroup'; id: string } | undefined>;
  /**
   * Optional: the Enterprise Grid organization this workspace belongs to (undefined outside a Grid), so a
   * member of the organization who is not in this workspace is told so rather than "another organization".
   */
  workspaceEnterpriseId?(): Promise<string | undefined>;
}

export interface OperatorDecision {
  allowed: boolean;
  /** Plain words, safe to show and to audit: `workspace admin`, `listed in <!subteam^S1>`, or why not. */
  because: string;
}

/** What canOperate decides from; all gathered beforehand, so the rule itself is pure. */
export interface OperatorFacts {
  /** The team id, or the enterprise id of an org-wide install: whose own people may operate. */
  workspaceId: string;
  userId: string;
  /** The user's team as the request said it (block_actions `user.team_id`), when it did. */
  payloadTeamId?: string;
  user?: DirectoryUser;
  installerUserId?: string;
  operators: Operator[];
  /** Members of each listed user group that could be read. */
  groupMembers: Map<string, readonly string[]>;
  /** Groups whose members could not be read. */
  unreadableGroups?: string[];
  /** The user's own profile (admin/owner flags) could not be read. */
  userUnreadable?: boolean;
  /** The Enterprise Grid organization of a workspace install, when known (Directory.workspaceEnterpriseId). */
  workspaceEnterpriseId?: string;
}

/** Whether `workspaceId` is the user's Enterprise Grid organization itself: an org-wide install. */
const orgWideFor = (facts: OperatorFacts, user: DirectoryUser) =>
  Boolean(user.enterpriseId) && user.enterpriseId === facts.workspaceId;

export function canOperate(facts: OperatorFacts): OperatorDecision {
  const { userId, user } = facts;
  // Who someone is comes before what any list says: without a readable profile nobody operates.
  if (facts.userUnreadable)
    return {
      allowed: false,
      because: 'your Slack profile could not be checked right now; try again in a minute',
    };
  if (!user)
    return {
      allowed: false,
      because:
        'Slack does not know you as a member of this workspace, and only its own members may change queues',
    };
  const stranger = whyNotOwnPerson(user, facts.workspaceId, facts.payloadTeamId, facts.workspaceEnterpriseId);
  if (stranger) return { allowed: false, because: stranger };
  if (user.isOwner) return { allowed: true, because: 'workspace owner' };
  if (user.isAdmin) return { allowed: true, because: 'workspace admin' };
  // An org-wide install's workspace is the whole organization: its admins and owners operate it.
  if (orgWideFor(facts, user) && user.isEnterpriseOwner)
    return { allowed: true, because: 'owner of the Enterprise Grid organization' };
  if (orgWideFor(facts, user) && user.isEnterpriseAdmin)
    return { allowed: true, because: 'admin of the Enterprise Grid organization' };
  if (facts.installerUserId && facts.installerUserId === userId)
    return { allowed: true, because: 'installed the app' };
  if (facts.operators.some((o) => o.kind === 'user' && o.id === userId))
    return { allowed: true, because: 'listed as an operator' };
  for (const op of facts.operators) {
    if (op.kind === 'usergroup' && facts.groupMembers.get(op.id)?.includes(userId))
      return { allowed: true, because: `member of operator group <!subteam^${op.id}>` };
  }
  const unreadable = facts.unreadableGroups ?? [];
  if (unreadable.length > 0)
    return {
      allowed: false,
      because: 'membership of the operator user groups could not be checked with Slack right now',
    };
  return {
    allowed: false,
    because: orgWideFor(facts, user)
      ? 'only admins and owners of the organization or its workspaces, the user who installed the app, and operators added with `/mergequeue config operators add` may change queues'
      : 'only workspace admins and owners, the user who installed the app, and operators added with `/mergequeue config operators add` may change queues',
  };
}

/** Per-call memo of group membership, so a decision reads each group at most once. */
export type MembershipCache = Map<string, Promise<string[]>>;

export interface CheckOperatorOptions {
  directory: Directory;
  store: Pick<Store, 'listOperators' | 'getWorkspace'>;
  workspaceId: string;
  userId: string;
  /** The user's team as the request said it (block_actions `user.team_id`). */
  payloadTeamId?: string | undefined;
  /** When known by the caller; otherwise read from the workspace settings. */
  installerUserId?: string;
  cache?: MembershipCache;
}

export async function checkOperator(opts: CheckOperatorOptions): Promise<OperatorDecision> {
  const { directory, store, workspaceId, userId } = opts;
  let user: DirectoryUser | undefined;
  let userUnreadable = false;
  try {
    user = await directory.getUser(userId);
  } catch {
    userUnreadable = true;
  }
  // A Grid member outside this workspace: ask which organization the workspace is in, to say so exactly.
  let workspaceEnterpriseId: string | undefined;
  if (user?.enterpriseId && user.enterpriseId !== workspaceId && whyNotOwnPerson(user, workspaceId)) {
    workspaceEnterpriseId = await directory.workspaceEnterpriseId?.().catch(() => undefined);
  }
  const base = {
    workspaceId,
    userId,
    ...(opts.payloadTeamId ? { payloadTeamId: opts.payloadTeamId } : {}),
    ...(user ? { user } : {}),
    ...(userUnreadable ? { userUnreadable } : {}),
    ...(workspaceEnterpriseId ? { workspaceEnterpriseId } : {}),
  };
  // Refusals that need no store read (unreadable, unknown, not one of ours) and admins/owners end here.
  const first = canOperate({ ...base, operators: [], groupMembers: new Map() });
  if (first.allowed || !user || whyNotOwnPerson(user, workspaceId, opts.payloadTeamId)) return first;

  let installerUserId = opts.installerUserId;
  if (!installerUserId) installerUserId = (await store.getWorkspace(workspaceId))?.installerUserId;
  const operators = await store.listOperators(workspaceId);
  const facts: OperatorFacts = { ...base, operators, groupMembers: new Map(), unreadableGroups: [] };
  if (installerUserId) facts.installerUserId = installerUserId;

  const quick = canOperate(facts);
  if (quick.allowed) return quick;

  const cache = opts.cache ?? new Map<string, Promise<string[]>>();
  for (const op of operators) {
    if (op.kind !== 'usergroup') continue;
    let members = cache.get(op.id);
    if (!members) {
      members = directory.usergroupMembers(op.id);
      cache.set(op.id, members);
    }
    try {
      const list = await members;
      facts.groupMembers.set(op.id, list);
      if (list.includes(userId)) break;
    } catch {
      facts.unreadableGroups!.push(op.id);
    }
  }
  return canOperate(facts);
}
