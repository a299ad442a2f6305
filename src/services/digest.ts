/**
 * The digest service: `(actor, request) → DigestAnswer` for every `/mergequeue digest …` subcommand. Who
 * may manage a channel's digests and which digests a person may see are the actor's questions (operator?
 * own person and member of the channel? can see the channel?), asked once per request; the digest domain
 * (digest/manage.ts) applies them and changes the stored subscriptions, and this service writes the audit
 * row of each change or refusal from the answer.
 */
import {
  type DigestAnswer,
  type DigestCommandContext,
  type DigestManager,
  type DigestRequest,
  describeSchedule,
  repoLabel,
} from '../digest/index.ts';
import type { Actor } from './actor.ts';

export interface DigestService {
  /** One subcommand, asked in `channelId` (where `digest add` puts a new digest). */
  handle(actor: Actor, channelId: string, request: DigestRequest): Promise<DigestAnswer>;
}

/** The digest domain's yes/no questions, answered by the actor. */
export async function digestContext(actor: Actor, channelId: string): Promise<DigestCommandContext> {
  const { tz } = await actor.standing();
  return {
    workspaceId: actor.workspace.id,
    channelId,
    userId: actor.userId,
    ...(tz ? { userTz: tz } : {}),
    isOperator: () => actor.isOperator(),
    // Guests, people of another organization, bots: never a digest's manager.
    isChannelMember: (channel) => actor.isChannelMember(channel),
    canSeeChannel: (channel) => actor.canSee(channel),
  };
}

export function createDigestService(manage: DigestManager): DigestService {
  const answer = (c: DigestCommandContext, request: DigestRequest): Promise<DigestAnswer> => {
    switch (request.op) {
      case 'add':
        return manage.add(c, request);
      case 'list':
        return manage.list(c);
      case 'set':
        return manage.set(c, request);
      case 'owners':
        return manage.owners(c, request);
      case 'remove':
        return manage.remove(c, request.id);
      case 'run':
        return manage.run(c, request.id);
    }
  };
  return {
    async handle(actor, channelId, request) {
      const c = await digestContext(actor, channelId);
      const a = await answer(c, request);
      const row = auditRow(request, a);
      if (row) await actor.audit(row.action, row.target, row.outcome, row.detail);
      return a;
    },
  };
}

/** The audit row of what a digest subcommand did: every change and refusal; undefined for a read. */
function auditRow(
  request: DigestRequest,
  a: DigestAnswer,
):
  | { action: string; target: string; outcome: 'ok' | 'refused'; detail: Record<string, unknown> }
  | undefined {
  switch (a.answer) {
    case 'not_channel_manager':
      return {
        action: `digest.${a.action}`,
        target: '',
        outcome: 'refused',
        detail: { reason: 'neither an operator nor a member of the channel', channel: a.channelId },
      };
    case 'not_operator':
      return {
        action: 'digest.owners',
        target: '',
        outcome: 'refused',
        detail: { reason: 'not an operator' },
      };
    case 'no_such_digest':
      // Only a digest that exists in a channel the person cannot see; a wrong id is no refusal.
      if (!a.hidden) return undefined;
      return {
        action: `digest.${request.op}`,
        target: '',
        outcome: 'refused',
        detail: { id: a.id, reason: 'the digest is in a channel this person cannot see' },
      };
    case 'added':
      return {
        action: 'digest.add',
        target: repoLabel(a.sub),
        outcome: 'ok',
        detail: {
          id: a.sub.id,
          kind: a.sub.kind,
          schedule: describeSchedule(a.sub),
          channel: a.sub.channelId,
          ...(a.sub.owner ? { owner: a.sub.owner } : {}),
        },
      };
    case 'changed':
      return {
        action: 'digest.set',
        target: repoLabel(a.sub),
        outcome: 'ok',
        detail: { id: a.sub.id, option: a.option, value: a.value },
      };
    case 'owner_mapped':
      return {
        action: 'digest.owners',
        target: '',
        outcome: 'ok',
        detail: { owner: a.owner, mentions: a.mentions },
      };
    case 'run_cooling_down':
      return {
        action: 'digest.run',
        target: repoLabel(a.sub),
        outcome: 'refused',
        detail: { id: a.sub.id, reason: 'cooldown', lastRunAt: a.lastStartedAt },
      };
    case 'run_busy':
      return {
        action: 'digest.run',
        target: repoLabel(a.sub),
        outcome: 'refused',
        detail: { id: a.sub.id, reason: 'scheduler busy' },
      };
    case 'run_started':
      return { action: 'digest.run', target: repoLabel(a.sub), outcome: 'ok', detail: { id: a.sub.id } };
    case 'removed':
      return { action: 'digest.remove', target: repoLabel(a.sub), outcome: 'ok', detail: { id: a.sub.id } };
    default:
      return undefined;
  }
}
