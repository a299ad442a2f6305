/**
 * The application layer's one idea of who is asking. An Actor is built ONCE per request by the Slack
 * side (slack/actor.ts, from a command, click or form payload): the workspace, the person, the clock, and
 * the questions every rule asks — is this person an operator? may they see this channel? are they one of
 * the workspace's own people, or a guest? Each answer is read at most once per request (memoised), from
 * ports (interfaces below) that the Slack side implements, so no service imports Slack.
 *
 * A service is one feature's rules: `(actor, request) → Promise<answer>`, where the answer is a plain
 * union (`{ answer: 'paused', … } | { answer: 'not_operator', … } | …`, the way digest/manage.ts's
 * DigestAnswer works). Services decide rights and visibility, write the audit (through `actor.audit`,
 * store/audit-retrying.ts's `auditBy`), and are the only callers of repositories and the store. A listener
 * parses, builds the actor, calls one service, renders the answer and replies: nothing else.
 */
import { type PersonFacts, whyNotOwnPerson } from '../queue/membership.ts';
import { checkOperator, type Directory, type OperatorDecision } from '../queue/permissions.ts';
import { type AuditActor, type AuditLost, auditBy } from '../store/audit-retrying.ts';
import type { AuditEntry, Store } from '../store/types.ts';

/** How the app is installed where the request came from. */
export type InstallKind =
  /** One workspace from SLACK_BOT_TOKEN (or the sandbox). */
  | 'single'
  /** A workspace installed through /slack/install. */
  | 'workspace'
  /** An org-wide Enterprise Grid install: the workspace id is the enterprise's id. */
  | 'enterprise';

export interface ActorWorkspace {
  /** How the store keys the workspace: the team id, or the enterprise id of an org-wide install. */
  id: string;
  /** The team the request came from, when it named one. */
  teamId?: string;
  enterpriseId?: string;
  install: InstallKind;
}

/**
 * What the Slack side answers about people and channels (slack/directory.ts implements it over users.info,
 * usergroups.users.list, conversations.members and conversations.info, cached briefly per workspace).
 */
export interface PeopleDirectory extends Directory {
  /** Whether the user is a member of the channel; false when Slack will not say. */
  isChannelMember(channelId: string, userId: string): Promise<boolean>;
  /** Whether the channel is public; false for private, DM or unknown channels. */
  isPublicChannel(channelId: string): Promise<boolean>;
}

/** Who someone is, as far as the app's rules care. */
export interface PersonStanding {
  /** Slack could not be asked (the rules fail closed on this). */
  unreadable: boolean;
  /** Slack knows the person (users.info answered with a profile). */
  known: boolean;
  /** One of the workspace's own people: not a guest, bot, deactivated account or person of another org. */
  own: boolean;
  /** A multi- or single-channel guest. */
  guest: boolean;
  /** Why not one of our own people, in plain words; undefined when they are. */
  whyNot?: string;
  /** Their Slack timezone (users.info `tz`), when known. */
  tz?: string;
  /** Their display name, when known. */
  name?: string;
}

export interface Actor {
  readonly workspace: ActorWorkspace;
  /** The Slack user acting. */
  readonly userId: string;
  /** The person's team as the payload said it (block_actions `user.team_id`), when it did. */
  readonly payloadTeamId: string | undefined;
  readonly now: () => number;
  /** Whether they may change queues, and why (words safe to show and audit). Memoised. */
  operator(): Promise<OperatorDecision>;
  isOperator(): Promise<boolean>;
  /**
   * Whether the person may see what belongs to a channel (a digest, a feed, a window): the rule
   * `digest list` uses — a public channel to the workspace's own people, otherwise only its members.
   * Operators get nothing extra here: ask `isOperator()` too where a rule lets them see everything.
   */
  canSee(channelId: string): Promise<boolean>;
  /** One of the workspace's own people AND a member of the channel: may manage that channel's things. */
  isChannelMember(channelId: string): Promise<boolean>;
  /** Who the person is (own person, guest, …). Memoised. */
  standing(): Promise<PersonStanding>;
  isOwnOrganization(): Promise<boolean>;
  isGuest(): Promise<boolean>;
  /** Whether the person is a member of the Slack user group `groupId` (S…); false when Slack will not say. */
  inUserGroup(groupId: string): Promise<boolean>;
  /** Writes one audit entry by this person (retried; a lost entry is logged and counted, never thrown). */
  audit(
    action: string,
    target: string,
    outcome: AuditEntry['outcome'],
    detail: Record<string, unknown>,
  ): Promise<void>;
}

export interface ActorOptions {
  workspace: ActorWorkspace;
  userId: string;
  payloadTeamId?: string | undefined;
  now: () => number;
  directory: PeopleDirectory;
  store: Pick<Store, 'listOperators' | 'getWorkspace' | 'appendAudit'>;
  auditLost?: AuditLost | undefined;
  /** When the caller already knows it (re-install); otherwise read from the workspace settings. */
  installerUserId?: string;
}

/** Builds the Actor of one request. Every question is asked of Slack and the store at most once. */
export function createActor(opts: ActorOptions): Actor {
  const { workspace, userId, now } = opts;
  const directory = onceEach(opts.directory);
  const payloadTeamId = opts.payloadTeamId || undefined;
  const auditActor: AuditActor = {
    store: opts.store,
    workspaceId: workspace.id,
    userId,
    now,
    auditLost: opts.auditLost,
  };
  let operator: Promise<OperatorDecision> | undefined;
  let standing: Promise<PersonStanding> | undefined;
  const members = new Map<string, Promise<boolean>>();
  const publics = new Map<string, Promise<boolean>>();

  const memo = <T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
    let hit = map.get(key);
    if (!hit) {
      hit = load();
      map.set(key, hit);
    }
    return hit;
  };
  const member = (channelId: string) =>
    memo(members, channelId, () => directory.isChannelMember(channelId, userId).catch(() => false));
  const isPublic = (channelId: string) =>
    memo(publics, channelId, () => directory.isPublicChannel(channelId).catch(() => false));

  const actor: Actor = {
    workspace,
    userId,
    payloadTeamId,
    now,
    operator() {
      operator ??= checkOperator({
        directory,
        store: opts.store,
        workspaceId: workspace.id,
        userId,
        payloadTeamId,
        ...(opts.installerUserId ? { installerUserId: opts.installerUserId } : {}),
      });
      return operator;
    },
    async isOperator() {
      return (await actor.operator()).allowed;
    },
    standing() {
      standing ??= readStanding(directory, workspace.id, userId, payloadTeamId);
      return standing;
    },
    async isOwnOrganization() {
      return (await actor.standing()).own;
    },
    async isGuest() {
      return (await actor.standing()).guest;
    },
    async canSee(channelId) {
      const own = (await actor.standing()).own;
      return (own && (await isPublic(channelId))) || (await member(channelId));
    },
    async isChannelMember(channelId) {
      return (await actor.standing()).own && (await member(channelId));
    },
    async inUserGroup(groupId) {
      return (await directory.usergroupMembers(groupId).catch(() => [] as string[])).includes(userId);
    },
    audit(action, target, outcome, detail) {
      return auditBy(auditActor, action, target, outcome, detail);
    },
  };
  return actor;
}

/** The directory with each person's profile and each group read at most once (this request's view). */
function onceEach(inner: PeopleDirectory): PeopleDirectory {
  const users = new Map<string, ReturnType<Directory['getUser']>>();
  const groups = new Map<string, Promise<string[]>>();
  const once = <T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
    let hit = map.get(key);
    if (!hit) {
      hit = load();
      map.set(key, hit);
    }
    return hit;
  };
  return {
    getUser: (id) => once(users, id, () => inner.getUser(id)),
    usergroupMembers: (id) => once(groups, id, () => inner.usergroupMembers(id)),
    isChannelMember: (c, u) => inner.isChannelMember(c, u),
    isPublicChannel: (c) => inner.isPublicChannel(c),
    ...(inner.findByName ? { findByName: inner.findByName.bind(inner) } : {}),
    ...(inner.workspaceEnterpriseId
      ? { workspaceEnterpriseId: onceValue(inner.workspaceEnterpriseId.bind(inner)) }
      : {}),
  };
}

function onceValue<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= load();
    return value;
  };
}

async function readStanding(
  directory: Directory,
  workspaceId: string,
  userId: string,
  payloadTeamId: string | undefined,
): Promise<PersonStanding> {
  let user: (PersonFacts & { tz?: string; name?: string }) | undefined;
  try {
    user = await directory.getUser(userId);
  } catch {
    return { unreadable: true, known: false, own: false, guest: false, whyNot: 'unreadable' };
  }
  if (!user)
    return {
      unreadable: false,
      known: false,
      own: false,
      guest: false,
      whyNot: 'Slack does not know you as a member of this workspace',
    };
  const whyNot = whyNotOwnPerson(user, workspaceId, payloadTeamId);
  return {
    unreadable: false,
    known: true,
    own: !whyNot,
    guest: Boolean(user.isRestricted || user.isUltraRestricted),
    ...(whyNot ? { whyNot } : {}),
    ...(user.tz ? { tz: user.tz } : {}),
    ...(user.name ? { name: user.name } : {}),
  };
}
