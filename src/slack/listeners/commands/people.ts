/**
 * `/mergequeue config people <@user> <login>`: an operator links someone to a GitHub login. The link is
 * verified, and it settles a dispute: the login moves from whoever claimed it, and they are told.
 */
import { mention } from '../../blocks/format.ts';
import { meReply } from './me.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function linkPerson(req: CommandRequest, userId: string, login: string): Promise<Outcome> {
  const answer = await req.services.people.linkByOperator(req.actor, userId, login);
  const { reply, outcome } = meReply(answer);
  await req.reply.respond(reply);
  if (answer.answer === 'linked' && answer.replaced && answer.replaced !== userId)
    await tellEarlierHolder(req, answer.replaced, answer.link.githubLogin, userId);
  return outcome;
}

/** The person the login was taken from hears it from the app (a DM), so the change is never silent. */
async function tellEarlierHolder(
  req: CommandRequest,
  earlier: string,
  login: string,
  newHolder: string,
): Promise<void> {
  const text = `:link: GitHub login \`${login}\` is no longer linked to you: ${mention(req.userId)} linked it to ${mention(newHolder)}, an operator's confirmed link. You will get no more notes about that login's PRs. If it is yours, ask an operator; \`/mergequeue me github <login>\` links your own.`;
  // Through the outbox, paced with everything else the app posts to that person.
  const sent = await req.deps.outbox
    .post({ workspaceId: req.workspaceId, channel: earlier }, { text }, 'notice')
    .catch((err: unknown) => ({ ok: false as const, code: String(err) }));
  if (!sent.ok)
    req.deps.logger.warn({ slackError: sent.code }, 'could not tell a person their GitHub login was moved');
}
