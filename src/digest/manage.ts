/**
 * What people may do with digests: checks who may do what, validates the repository with Trunk, changes
 * the stored subscriptions, and answers with plain data (a `DigestAnswer`), from which the application
 * layer (services/digest.ts) writes the audit row of each change or refusal. The `/mergequeue digest`
 * grammar and the words of each reply live in slack/.
 */

import { canonicalTimeZone, formatLocalTime } from '../core/local-time.ts';
import { DEFAULT_BRANCH, type RepoRef } from '../core/target.ts';
import { isTrunkError, type TrunkError } from '../trunk/errors.ts';
import type { ManualRunCooldown } from './cooldown.ts';
import type { DigestDeps } from './deps.ts';
import type { SubscriptionRepository } from './repository.ts';
import { type DaysRule, nextOccurrence } from './schedule.ts';
import type { DigestRequest, RunOutcome, Subscription } from './types.ts';

/** A new digest's time when none is given: 09:00 in its timezone. */
export const DEFAULT_TIME = 9 * 60;
export const DEFAULT_DAYS: DaysRule = 'weekdays';
/** Tests a digest lists when nobody said how many. */
export const DEFAULT_TOP = 10;
/** The most tests a digest lists: 50 keeps a thread to five replies of ten. */
export const MAX_TOP = 50;
/** Digests one channel may hold, so one channel cannot fill the scheduler. */
export const MAX_PER_CHANNEL = 20;

type ManagerAction = 'add' | 'set' | 'remove' | 'run';

/** Why nothing was done: the words for each are the Slack side's. */
export type DigestRefusal =
  /** Neither an operator nor a member of the digest's channel (`action` is what they tried). */
  | { answer: 'not_channel_manager'; action: ManagerAction; channelId: string }
  /** Only operators change who digests mention. */
  | { answer: 'not_operator'; action: 'owners' }
  /**
   * No such digest, or one in a channel the person cannot see (told the same, so nothing leaks; `hidden`
   * says which for the audit, never for the reply).
   */
  | { answer: 'no_such_digest'; id: string; hidden?: true };

/** What each operation did, as plain data. */
export type DigestAnswer =
  | DigestRefusal
  | { answer: 'no_trunk_token' }
  | { answer: 'repo_unknown'; repo: RepoRef; orgSlug: string }
  | { answer: 'repo_check_failed'; repo: RepoRef; error: TrunkError }
  | { answer: 'no_repo' }
  | { answer: 'channel_full'; max: number }
  | { answer: 'added'; sub: Subscription }
  | { answer: 'listed'; subs: Subscription[]; ownerMappings: number }
  /** `value` as the audit log records it (`on`, `08:30`, `20`). */
  | { answer: 'changed'; sub: Subscription; option: string; value: string }
  | { answer: 'owners'; mentions: Map<string, string[]> }
  | { answer: 'owner_mapped'; owner: string; mentions: string[]; changed: boolean }
  | { answer: 'removed'; sub: Subscription }
  | {
      answer: 'run_cooling_down';
      sub: Subscription;
      lastStartedAt: number;
      lastStartedBy: string;
      nextAllowedAt: number;
      cooldownMs: number;
    }
  | { answer: 'run_busy'; sub: Subscription }
  | { answer: 'run_started'; sub: Subscription };

type Op<K extends DigestRequest['op']> = Extract<DigestRequest, { op: K }>;

/** The operations, one per subcommand. */
export interface DigestManager {
  add(c: DigestCommandContext, req: Op<'add'>): Promise<DigestAnswer>;
  list(c: DigestCommandContext): Promise<DigestAnswer>;
  set(c: DigestCommandContext, req: Op<'set'>): Promise<DigestAnswer>;
  owners(c: DigestCommandContext, req: Op<'owners'>): Promise<DigestAnswer>;
  remove(c: DigestCommandContext, id: string): Promise<DigestAnswer>;
  run(c: DigestCommandContext, id: string): Promise<DigestAnswer>;
}

export interface DigestCommandContext {
  workspaceId: string;
  channelId: string;
  userId: string;
  /** The requesting user's Slack timezone (users.info `tz`), the default for new digests. */
  userTz?: string;
  isOperator: () => Promise<boolean>;
  /**
   * Whether the person is one of the workspace's own people (never a guest, a person of another
   * organization, a bot) and a member of the channel: they may manage that channel's digests.
   */
  isChannelMember: (channelId: string) => Promise<boolean>;
  /** Whether the person can see the channel: public (to the workspace's own people), or they are a member. */
  canSeeChannel: (channelId: string) => Promise<boolean>;
}

export interface ManageEnv {
  deps: DigestDeps;
  subs: SubscriptionRepository;
  now: () => number;
  logger: DigestDeps['logger'];
  /** Starts a manual run in a free scheduler slot; undefined when every slot is taken. */
  runManual: (sub: Subscription) => Promise<RunOutcome> | undefined;
  cooldown: ManualRunCooldown;
  cooldownMs: number;
}

export function createDigestManager(env: ManageEnv): DigestManager {
  const { deps, subs, now, logger } = env;
  /**
   * Operators manage every digest; anyone else only the digests of a channel they are a member of (and
   * never a guest or a person of another organization), so `digest run` cannot post into a channel the
   * person is not in.
   */
  async function refuseUnlessChannelManager(
    c: DigestCommandContext,
    channelId: string,
    action: ManagerAction,
  ): Promise<DigestRefusal | undefined> {
    if ((await c.isOperator()) || (await c.isChannelMember(channelId))) return undefined;
    return { answer: 'not_channel_manager', action, channelId };
  }

  async function refuseUnlessOperator(c: DigestCommandContext): Promise<DigestRefusal | undefined> {
    if (await c.isOperator()) return undefined;
    return { answer: 'not_operator', action: 'owners' };
  }

  /** The digest, unless it is in a channel the person cannot see (then it is as if it did not exist). */
  async function findSub(c: DigestCommandContext, id: string): Promise<Subscription | DigestRefusal> {
    const sub = await subs.get(c.workspaceId, id);
    if (sub && ((await c.canSeeChannel(sub.channelId)) || (await c.isOperator()))) return sub;
    return sub ? { answer: 'no_such_digest', id, hidden: true } : { answer: 'no_such_digest', id };
  }

  /** Checks with Trunk that the repository exists for this workspace's organization. */
  async function checkRepo(workspaceId: string, repo: RepoRef): Promise<DigestAnswer | undefined> {
    const trunk = await deps.trunkFor(workspaceId);
    if (!trunk) return { answer: 'no_trunk_token' };
    try {
      await trunk.api.listQuarantinedTests(
        { repo, org_url_slug: trunk.orgSlug, page_query: { page_size: 1, page_token: '' } },
        { deadlineMs: 10_000 },
      );
      return undefined;
    } catch (err) {
      if (!isTrunkError(err)) throw err;
      if (err.kind === 'not_found') return { answer: 'repo_unknown', repo, orgSlug: trunk.orgSlug };
      return { answer: 'repo_check_failed', repo, error: err };
    }
  }

  /** Checks with Trunk that the queue (repository and branch) exists for this workspace's organization. */
  async function checkQueue(
    workspaceId: string,
    repo: RepoRef,
    branch: string,
  ): Promise<DigestAnswer | undefined> {
    const trunk = await deps.trunkFor(workspaceId);
    if (!trunk) return { answer: 'no_trunk_token' };
    try {
      await trunk.api.getQueue({ repo, targetBranch: branch }, { deadlineMs: 10_000 });
      return undefined;
    } catch (err) {
      if (!isTrunkError(err)) throw err;
      if (err.kind === 'not_found') return { answer: 'repo_unknown', repo, orgSlug: trunk.orgSlug };
      return { answer: 'repo_check_failed', repo, error: err };
    }
  }

  async function add(c: DigestCommandContext, cmd: Op<'add'>): Promise<DigestAnswer> {
    const refused = await refuseUnlessChannelManager(c, c.channelId, 'add');
    if (refused) return refused;
    let repo = cmd.repo;
    let branch = cmd.branch;
    if (!repo) {
      const channel = await deps.store.getChannelDefault(c.workspaceId, c.channelId);
      const workspace = await deps.store.getWorkspace(c.workspaceId);
      const chosen = [channel, workspace?.defaultTarget, deps.defaultTarget].find((t) => t?.repo);
      repo = chosen?.repo;
      branch ??= chosen?.branch;
    }
    if (!repo) return { answer: 'no_repo' };
    // A health digest is about one queue: its branch, or the default branch.
    if (cmd.kind === 'health') branch ??= DEFAULT_BRANCH;
    else branch = undefined;
    if ((await subs.countInChannel(c.workspaceId, c.channelId)) >= MAX_PER_CHANNEL)
      return { answer: 'channel_full', max: MAX_PER_CHANNEL };
    const tz = cmd.tz ?? (c.userTz ? canonicalTimeZone(c.userTz) : undefined) ?? 'UTC';
    const spec = { minuteOfDay: cmd.minuteOfDay ?? DEFAULT_TIME, tz, days: cmd.days ?? DEFAULT_DAYS };
    const problem =
      branch === undefined
        ? await checkRepo(c.workspaceId, repo)
        : await checkQueue(c.workspaceId, repo, branch);
    if (problem) return problem;
    const t = now();
    const sub = await subs.insert({
      workspaceId: c.workspaceId,
      channelId: c.channelId,
      kind: cmd.kind,
      repo,
      ...(branch !== undefined ? { branch } : {}),
      ...spec,
      skipEmpty: true,
      topN: DEFAULT_TOP,
      createdBy: c.userId,
      createdAt: t,
      nextDueAt: nextOccurrence(spec, t),
      ...(cmd.owner ? { owner: cmd.owner } : {}),
    });
    return { answer: 'added', sub };
  }

  async function list(c: DigestCommandContext): Promise<DigestAnswer> {
    // Only the digests of channels the person can see: a list must not name private channels to outsiders.
    const visible = new Map<string, Promise<boolean>>();
    const seen = (channelId: string) => {
      let v = visible.get(channelId);
      if (!v) {
        v = c.canSeeChannel(channelId);
        visible.set(channelId, v);
      }
      return v;
    };
    const every = await subs.list(c.workspaceId);
    const shown = await Promise.all(every.map((s) => seen(s.channelId)));
    const all = every.filter((_, i) => shown[i]);
    if (all.length === 0) return { answer: 'listed', subs: [], ownerMappings: 0 };
    const mentions = await subs.mentions(c.workspaceId);
    return { answer: 'listed', subs: all, ownerMappings: mentions.size };
  }

  async function set(c: DigestCommandContext, cmd: Op<'set'>): Promise<DigestAnswer> {
    const found = await findSub(c, cmd.id);
    if ('answer' in found) return found;
    const refused = await refuseUnlessChannelManager(c, found.channelId, 'set');
    if (refused) return refused;
    const next = { ...found };
    if (cmd.option === 'skip-empty') next.skipEmpty = cmd.value;
    else if (cmd.option === 'top') next.topN = cmd.value;
    else if (cmd.option === 'time') next.minuteOfDay = cmd.value;
    else if (cmd.option === 'tz') next.tz = cmd.value;
    else next.days = cmd.value;
    if (cmd.option === 'time' || cmd.option === 'tz' || cmd.option === 'days')
      next.nextDueAt = nextOccurrence({ minuteOfDay: next.minuteOfDay, tz: next.tz, days: next.days }, now());
    await subs.update(next);
    const shown =
      typeof cmd.value === 'boolean'
        ? cmd.value
          ? 'on'
          : 'off'
        : cmd.option === 'time'
          ? formatLocalTime(cmd.value as number)
          : String(cmd.value);
    return { answer: 'changed', sub: next, option: cmd.option, value: shown };
  }

  async function owners(c: DigestCommandContext, cmd: Op<'owners'>): Promise<DigestAnswer> {
    if (cmd.owner === undefined) return { answer: 'owners', mentions: await subs.mentions(c.workspaceId) };
    const refused = await refuseUnlessOperator(c);
    if (refused) return refused;
    const mentions = cmd.mentions ?? [];
    const changed = await subs.setMentions(c.workspaceId, cmd.owner, mentions, c.userId, now());
    return { answer: 'owner_mapped', owner: cmd.owner, mentions, changed };
  }

  /** `digest run <id>`: by a manager of its channel, once per cooldown window, in a free scheduler slot. */
  async function run(c: DigestCommandContext, id: string): Promise<DigestAnswer> {
    const found = await findSub(c, id);
    if ('answer' in found) return found;
    const refused = await refuseUnlessChannelManager(c, found.channelId, 'run');
    if (refused) return refused;
    const key = { subscriptionId: found.id, workspaceId: c.workspaceId };
    const claim = await env.cooldown.claim(key, c.userId, now(), env.cooldownMs);
    if (!claim.ok) {
      return {
        answer: 'run_cooling_down',
        sub: found,
        lastStartedAt: claim.lastStartedAt,
        lastStartedBy: claim.lastStartedBy,
        nextAllowedAt: claim.nextAllowedAt,
        cooldownMs: env.cooldownMs,
      };
    }
    const started = env.runManual(found);
    if (!started) {
      await env.cooldown.release(found.id, claim.startedAt);
      return { answer: 'run_busy', sub: found };
    }
    started.catch((err: unknown) => logger.error({ err }, 'manual digest failed'));
    return { answer: 'run_started', sub: found };
  }

  async function remove(c: DigestCommandContext, id: string): Promise<DigestAnswer> {
    const found = await findSub(c, id);
    if ('answer' in found) return found;
    const refused = await refuseUnlessChannelManager(c, found.channelId, 'remove');
    if (refused) return refused;
    await subs.remove(c.workspaceId, id);
    await env.cooldown.forget(id);
    return { answer: 'removed', sub: found };
  }

  return { add, list, set, owners, remove, run };
}
