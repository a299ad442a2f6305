/**
 * Who may change a queue. Trunk sees one API token per workspace, so the app decides: workspace admins and
 * owners, the user who installed the app, and the users and user groups listed with `config operators`.
 * Anyone may read. When a fact cannot be checked (Slack unreachable) the answer is no: fail closed.
 */
import type { Operator, Store } from '../store/types.ts';

export interface DirectoryUser {
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
}

export interface OperatorDecision {
  allowed: boolean;
  /** Plain words, safe to show and to audit: `workspace admin`, `listed in <!subteam^S1>`, or why not. */
  because: string;
}

/** What canOperate decides from; all gathered beforehand, so the rule itself is pure. */
export interface OperatorFacts {
  userId: string;
  user?: DirectoryUser;
  installerUserId?: string;
  operators: Operator[];
  /** Members of each listed user group that could be read. */
  groupMembers: Map<string, readonly string[]>;
  /** Groups whose members could not be read. */
  unreadableGroups?: string[];
  /** The user's own profile (admin/owner flags) could not be read. */
  userUnreadable?: boolean;
}

export function canOperate(facts: OperatorFacts): OperatorDecision {
  const { userId, user } = facts;
  if (user?.isOwner) return { allowed: true, because: 'workspace owner' };
  if (user?.isAdmin) return { allowed: true, because: 'workspace admin' };
  if (facts.installerUserId && facts.installerUserId === userId)
    return { allowed: true, because: 'installed the app' };
  if (facts.operators.some((o) => o.kind === 'user' && o.id === userId))
    return { allowed: true, because: 'listed as an operator' };
  for (const op of facts.operators) {
    if (op.kind === 'usergroup' && facts.groupMembers.get(op.id)?.includes(userId))
      return { allowed: true, because: `member of operator group <!subteam^${op.id}>` };
  }
  const unreadable = facts.unreadableGroups ?? [];
  if (facts.userUnreadable)
    return {
      allowed: false,
      because: 'your Slack profile could not be checked right now; try again in a minute',
    };
  if (unreadable.length > 0)
    return {
      allowed: false,
      because: 'membership of the operator user groups could not be checked with Slack right now',
    };
  return {
    allowed: false,
    because:
      'only workspace admins and owners, the user who installed the app, and operators added with `/mergequeue config operators add` may change queues',
  };
}

/** Per-call memo of group membership, so a decision reads each group at most once. */
export type MembershipCache = Map<string, Promise<string[]>>;

export interface CheckOperatorOptions {
  directory: Directory;
  store: Pick<Store, 'listOperators' | 'getWorkspace'>;
  workspaceId: string;
  userId: string;
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
    // Fall through to the stored facts: an installer or listed operator is still allowed.
    userUnreadable = true;
  }
  if (user?.isOwner || user?.isAdmin)
    return canOperate({ userId, user, operators: [], groupMembers: new Map() });

  let installerUserId = opts.installerUserId;
  if (!installerUserId) installerUserId = (await store.getWorkspace(workspaceId))?.installerUserId;
  const operators = await store.listOperators(workspaceId);
  const facts: OperatorFacts = { userId, operators, groupMembers: new Map(), unreadableGroups: [] };
  if (user) facts.user = user;
  if (installerUserId) facts.installerUserId = installerUserId;
  if (userUnreadable) facts.userUnreadable = true;

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
