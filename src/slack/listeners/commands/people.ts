/**
 * `/mergequeue config people <@user> <login>`: an operator links someone to a GitHub login. The link is
 * verified, and it settles a dispute: the login moves from whoever claimed it. Refusals are audited.
 */
import { recordRefusal } from '../../../queue/service.ts';
import { PeopleRepository } from '../../../watch/index.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { renderLinked, renderLinkInvalid } from '../../blocks/watch.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import { auditCommand } from './audit.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function linkPerson(req: CommandRequest, userId: string, login: string): Promise<Outcome> {
  const { deps } = req;
  const decision = await mayOperate(deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    await recordRefusal(
      { store: deps.store, workspaceId: req.workspaceId, userId: req.userId, now: deps.now },
      'config.people',
      login.slice(0, 60),
      decision.because,
    );
    await sendReply(deps, req.respond, renderRefusal('link people to GitHub logins', decision.because));
    return 'refused';
  }
  const r = await new PeopleRepository(deps.store.db).link({
    workspaceId: req.workspaceId,
    userId,
    githubLogin: login,
    linkedBy: req.userId,
    verified: true,
    reassign: true,
    now: deps.now(),
  });
  if (!r.ok) {
    // reassign: true never answers `taken`; only an invalid login is left.
    await sendReply(
      deps,
      req.respond,
      renderLinkInvalid(r.reason === 'invalid' ? r.message : 'That login could not be linked.'),
    );
    return 'invalid';
  }
  await auditCommand(req, 'config.people', r.link.githubLogin, 'ok', {
    user: userId,
    ...(r.replaced ? { replaced: r.replaced } : {}),
  });
  await sendReply(deps, req.respond, renderLinked(r.link, true, r.replaced));
  return 'ok';
}
