/**
 * Handling `/mergequeue digest …`: checks who may do what, validates with Trunk, changes the stored
 * subscriptions and answers with one ephemeral message. Parsing lives in command.ts.
 */

import { canonicalTimeZone, formatLocalTime } from '../core/local-time.ts';
import type { SlackReply } from '../slack/reply.ts';
import { isTrunkError } from '../trunk/errors.ts';
import {
  DEFAULT_DAYS,
  DEFAULT_TIME,
  DEFAULT_TOP,
  DIGEST_HELP,
  type DigestCommand,
  describeSchedule,
  MAX_PER_CHANNEL,
  parseDigestCommand,
  reply,
} from './command.ts';
import type { ManualRunCooldown } from './cooldown.ts';
import { repoLabel, slackDate } from './render.ts';
import type { SubscriptionRepository } from './repository.ts';
import { nextOccurrence } from './schedule.ts';
import type { DigestDeps, RunOutcome, Subscription } from './types.ts';

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

export interface HandlerEnv {
  deps: DigestDeps;
  subs: SubscriptionRepository;
  now: () => number;
  logger: DigestDeps['logger'];
  /** Starts a manual run in a free scheduler slot; undefined when every slot is taken. */
  runManual: (sub: Subscription) => Promise<RunOutcome> | undefined;
  cooldown: ManualRunCooldown;
  cooldownMs: number;
}

export function createCommandHandler(env: HandlerEnv) {
  const { deps, subs, now, logger } = env;
  async function audit(
    c: DigestCommandContext,
    action: string,
    target: string,
    outcome: 'ok' | 'refused',
    detail: Record<string, unknown>,
  ) {
    try {
      await deps.store.appendAudit({
        workspaceId: c.workspaceId,
        userId: c.userId,
        action,
        target,
        outcome,
        detail,
      });
    } catch (err) {
      logger.warn({ err }, 'audit write failed');
    }
  }

  /**
   * Operators manage every digest; anyone else only the digests of a channel they are a member of (and
   * never a guest or a person of another organization), so `digest run` cannot post into a channel the
   * person is not in.
   */
  async function refuseUnlessChannelManager(
    c: DigestCommandContext,
    channelId: string,
    action: string,
    what: string,
  ) {
    if ((await c.isOperator()) || (await c.isChannelMember(channelId))) return undefined;
    await audit(c, `digest.${action}`, '', 'refused', {
      reason: 'neither an operator nor a member of the channel',
      channel: channelId,
    });
    return reply(
      `Only operators and members of <#${channelId}> can ${what}. Join the channel, or ask an operator (workspace admins and owners are operators).`,
    );
  }

  async function refuseUnlessOperator(c: DigestCommandContext, action: string, what: string) {
    if (await c.isOperator()) return undefined;
    await audit(c, `digest.${action}`, '', 'refused', { reason: 'not an operator' });
    return reply(
      `Only operators can ${what}. Workspace admins and owners are operators; an operator can add you with \`/mergequeue config operators add @you\`.`,
    );
  }

  /** The digest, unless it is in a channel the person cannot see (then it is as if it did not exist). */
  async function findSub(
    c: DigestCommandContext,
    id: string,
    action: string,
  ): Promise<Subscription | SlackReply> {
    const sub = await subs.get(c.workspaceId, id);
    if (sub && ((await c.canSeeChannel(sub.channelId)) || (await c.isOperator()))) return sub;
    if (sub)
      await audit(c, `digest.${action}`, '', 'refused', {
        id,
        reason: 'the digest is in a channel this person cannot see',
      });
    return reply(
      `There is no digest \`${id}\` in this workspace. \`/mergequeue digest list\` shows the ids.`,
    );
  }

  /** Checks with Trunk that the repository exists for this workspace's organization. */
  async function checkRepo(
    workspaceId: string,
    sub: Pick<Subscription, 'repo'>,
  ): Promise<string | undefined> {
    const trunk = await deps.trunkFor(workspaceId);
    if (!trunk)
      return 'This workspace has no Trunk API token yet, so digests cannot be made. An admin can store one with `/mergequeue connect`.';
    try {
      await trunk.api.listQuarantinedTests(
        { repo: sub.repo, org_url_slug: trunk.orgSlug, page_query: { page_size: 1, page_token: '' } },
        { deadlineMs: 10_000 },
      );
      return undefined;
    } catch (err) {
      if (!isTrunkError(err)) throw err;
      if (err.kind === 'not_found')
        return `Trunk does not know the repository \`${repoLabel(sub)}\` in organization \`${trunk.orgSlug}\`. Check the name (\`owner/repo\`, with the host first if it is not on github.com); nothing was saved.`;
      return `Could not check \`${repoLabel(sub)}\` with Trunk: ${err.userMessage} ${err.hint} Nothing was saved.`;
    }
  }

  async function add(
    c: DigestCommandContext,
    cmd: Extract<DigestCommand, { op: 'add' }>,
  ): Promise<SlackReply> {
    const refused = await refuseUnlessChannelManager(c, c.channelId, 'add', 'add digests to this channel');
    if (refused) return refused;
    let repo = cmd.repo;
    if (!repo) {
      const channel = await deps.store.getChannelDefault(c.workspaceId, c.channelId);
      const workspace = await deps.store.getWorkspace(c.workspaceId);
      repo = channel?.repo ?? workspace?.defaultTarget?.repo ?? deps.defaultTarget?.repo;
    }
    if (!repo)
      return reply(
        'This channel has no repository yet. Name one, for example `/mergequeue digest add failing acme/web`, or set the channel’s with `/mergequeue config channel acme/web`.',
      );
    if ((await subs.countInChannel(c.workspaceId, c.channelId)) >= MAX_PER_CHANNEL)
      return reply(
        `This channel already has ${MAX_PER_CHANNEL} digests; remove one with \`/mergequeue digest remove <id>\` first.`,
      );
    const tz = cmd.tz ?? (c.userTz ? canonicalTimeZone(c.userTz) : undefined) ?? 'UTC';
    const spec = { minuteOfDay: cmd.minuteOfDay ?? DEFAULT_TIME, tz, days: cmd.days ?? DEFAULT_DAYS };
    const problem = await checkRepo(c.workspaceId, { repo });
    if (problem) return reply(problem);
    const t = now();
    const sub = await subs.insert({
      workspaceId: c.workspaceId,
      channelId: c.channelId,
      kind: cmd.kind,
      repo,
      ...spec,
      skipEmpty: true,
      topN: DEFAULT_TOP,
      createdBy: c.userId,
      createdAt: t,
      nextDueAt: nextOccurrence(spec, t),
    });
    await audit(c, 'digest.add', repoLabel(sub), 'ok', {
      id: sub.id,
      kind: sub.kind,
      schedule: describeSchedule(sub),
      channel: c.channelId,
    });
    return reply(
      `Added digest \`${sub.id}\`: ${sub.kind} tests of \`${repoLabel(sub)}\`, ${describeSchedule(sub)}, in <#${c.channelId}>. ` +
        `The first is due ${slackDate(sub.nextDueAt)}. It is not posted when there is nothing to report (\`digest set ${sub.id} skip-empty off\` to change), lists the top ${sub.topN} tests (\`digest set ${sub.id} top 20\`); try it now with \`/mergequeue digest run ${sub.id}\`.`,
    );
  }

  async function list(c: DigestCommandContext): Promise<SlackReply> {
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
    if (all.length === 0)
      return reply(
        'No digests in this workspace yet. Add one with `/mergequeue digest add failing owner/repo 09:00`.',
      );
    const lines = all.map(
      (s) =>
        `• \`${s.id}\` ${s.kind} · \`${repoLabel(s)}\` · ${describeSchedule(s)} · <#${s.channelId}> · top ${s.topN} · skip-empty ${s.skipEmpty ? 'on' : 'off'} · next ${slackDate(s.nextDueAt)}`,
    );
    const mentions = await subs.mentions(c.workspaceId);
    const owners = mentions.size
      ? `\n${mentions.size} code owner mapping${mentions.size === 1 ? '' : 's'} (\`digest owners\`).`
      : '';
    return reply(`*Digests (${all.length})*\n${lines.join('\n').slice(0, 38_000)}${owners}`);
  }

  async function set(
    c: DigestCommandContext,
    cmd: Extract<DigestCommand, { op: 'set' }>,
  ): Promise<SlackReply> {
    const found = await findSub(c, cmd.id, 'set');
    if (!('id' in found)) return found;
    const refused = await refuseUnlessChannelManager(c, found.channelId, 'set', 'change this digest');
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
    await audit(c, 'digest.set', repoLabel(found), 'ok', { id: found.id, option: cmd.option, value: shown });
    return reply(
      `Digest \`${found.id}\`: ${cmd.option} is now ${shown}. It posts ${describeSchedule(next)}; next due ${slackDate(next.nextDueAt)}.`,
    );
  }

  async function owners(
    c: DigestCommandContext,
    cmd: Extract<DigestCommand, { op: 'owners' }>,
  ): Promise<SlackReply> {
    if (cmd.owner === undefined) {
      const map = await subs.mentions(c.workspaceId);
      if (map.size === 0)
        return reply(
          'No code owners are mapped yet. Map one with `/mergequeue digest owners @acme/payments @alice @payments-team`.',
        );
      const lines = [...map].map(([o, m]) => `• \`${o}\` → ${m.join(' ')}`);
      return reply(`*Code owners mentioned in digests*\n${lines.join('\n')}`);
    }
    const refused = await refuseUnlessOperator(c, 'owners', 'change who digests mention');
    if (refused) return refused;
    const mentions = cmd.mentions ?? [];
    const changed = await subs.setMentions(c.workspaceId, cmd.owner, mentions, c.userId, now());
    await audit(c, 'digest.owners', '', 'ok', { owner: cmd.owner, mentions });
    if (mentions.length === 0)
      return reply(
        changed
          ? `Digests no longer mention anyone for \`${cmd.owner}\`.`
          : `\`${cmd.owner}\` was not mapped; nothing changed.`,
      );
    return reply(`Digests now mention ${mentions.join(' ')} for tests owned by \`${cmd.owner}\`.`);
  }

  /** `digest run <id>`: by a manager of its channel, once per cooldown window, in a free scheduler slot. */
  async function run(c: DigestCommandContext, id: string): Promise<SlackReply> {
    const found = await findSub(c, id, 'run');
    if (!('id' in found)) return found;
    const refused = await refuseUnlessChannelManager(c, found.channelId, 'run', 'run this digest');
    if (refused) return refused;
    const key = { subscriptionId: found.id, workspaceId: c.workspaceId };
    const claim = await env.cooldown.claim(key, c.userId, now(), env.cooldownMs);
    if (!claim.ok) {
      await audit(c, 'digest.run', repoLabel(found), 'refused', {
        id: found.id,
        reason: 'cooldown',
        lastRunAt: claim.lastStartedAt,
      });
      const by = claim.lastStartedBy ? ` by <@${claim.lastStartedBy}>` : '';
      return reply(
        `Digest \`${found.id}\` is already running or ran ${slackDate(claim.lastStartedAt)}${by}; a digest can be run by hand once every ${Math.round(env.cooldownMs / 60_000)} minutes. Try again after ${slackDate(claim.nextAllowedAt)}.`,
      );
    }
    const started = env.runManual(found);
    if (!started) {
      await env.cooldown.release(found.id, claim.startedAt);
      await audit(c, 'digest.run', repoLabel(found), 'refused', { id: found.id, reason: 'scheduler busy' });
      return reply(
        `Every digest slot of this app is busy posting right now, so \`${found.id}\` was not run. Try again in a minute.`,
      );
    }
    started.catch((err: unknown) => logger.error({ err }, 'manual digest failed'));
    await audit(c, 'digest.run', repoLabel(found), 'ok', { id: found.id });
    return reply(`Posting digest \`${found.id}\` in <#${found.channelId}> now.`);
  }

  async function handle(args: string[], c: DigestCommandContext): Promise<SlackReply> {
    const parsed = parseDigestCommand(args);
    if (!parsed.ok) return reply(parsed.error);
    const cmd = parsed.command;
    switch (cmd.op) {
      case 'help':
        return reply(DIGEST_HELP);
      case 'add':
        return add(c, cmd);
      case 'list':
        return list(c);
      case 'set':
        return set(c, cmd);
      case 'owners':
        return owners(c, cmd);
      case 'remove': {
        const found = await findSub(c, cmd.id, 'remove');
        if (!('id' in found)) return found;
        const refused = await refuseUnlessChannelManager(c, found.channelId, 'remove', 'remove this digest');
        if (refused) return refused;
        await subs.remove(c.workspaceId, cmd.id);
        await env.cooldown.forget(cmd.id);
        await audit(c, 'digest.remove', repoLabel(found), 'ok', { id: found.id });
        return reply(
          `Removed digest \`${found.id}\` (${found.kind} tests of \`${repoLabel(found)}\` in <#${found.channelId}>).`,
        );
      }
      case 'run':
        return run(c, cmd.id);
    }
  }

  return handle;
}
