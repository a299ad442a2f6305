/**
 * The digest service: `(actor, request) → DigestAnswer` for every `/mergequeue digest …` subcommand. Who
 * may manage a channel's digests and which digests a person may see are the actor's questions (operator?
 * own person and member of the channel? can see the channel?), asked once per request; the digest domain
 * (digest/manage.ts) applies them, changes the stored subscriptions and audits.
 */
import type { DigestAnswer, DigestCommandContext, DigestManager, DigestRequest } from '../digest/index.ts';
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
  return {
    async handle(actor, channelId, request) {
      const c = await digestContext(actor, channelId);
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
    },
  };
}
