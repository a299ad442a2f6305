/**
 * `/mergequeue me …`: a person's own GitHub login, for notes about their PRs. A self-made link is a claim
 * nobody checked: it brings notes and nothing more, and a login someone else holds is refused (audited).
 */
import { PeopleRepository } from '../../../watch/index.ts';
import {
  renderForgotten,
  renderLinked,
  renderLinkInvalid,
  renderLoginTaken,
  renderNotify,
  renderPerson,
} from '../../blocks/watch.ts';
import type { MeCommand } from '../../commands/watch.ts';
import { sendReply } from '../../interaction.ts';
import { auditCommand } from './audit.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function me(req: CommandRequest, c: MeCommand): Promise<Outcome> {
  const people = new PeopleRepository(req.deps.store.db);
  const { deps, workspaceId, userId } = req;
  switch (c.kind) {
    case 'show':
      await sendReply(deps, req.respond, renderPerson(await people.get(workspaceId, userId)));
      return 'ok';
    case 'forget': {
      const had = await people.forget(workspaceId, userId);
      if (had) await auditCommand(req, 'me.forget', '', 'ok');
      await sendReply(deps, req.respond, renderForgotten(had));
      return had ? 'ok' : 'noop';
    }
    case 'notify': {
      const linked = await people.setNotify(workspaceId, userId, c.on);
      await sendReply(deps, req.respond, renderNotify(c.on, linked));
      return linked ? 'ok' : 'noop';
    }
    case 'github': {
      const current = await people.get(workspaceId, userId);
      // Re-claiming one's own operator-confirmed login keeps it confirmed.
      const same = current?.githubLogin.toLowerCase() === c.login.replace(/^@/, '').toLowerCase();
      const r = await people.link({
        workspaceId,
        userId,
        githubLogin: c.login,
        linkedBy: userId,
        verified: same && current?.verified === true,
        now: deps.now(),
      });
      if (!r.ok && r.reason === 'invalid') {
        await sendReply(deps, req.respond, renderLinkInvalid(r.message));
        return 'invalid';
      }
      if (!r.ok) {
        await auditCommand(req, 'me.github', c.login.slice(0, 60), 'refused', {
          because: 'the login is linked to someone else',
        });
        await sendReply(deps, req.respond, renderLoginTaken(c.login));
        return 'refused';
      }
      await auditCommand(req, 'me.github', r.link.githubLogin, 'ok');
      await sendReply(deps, req.respond, renderLinked(r.link, false));
      return 'ok';
    }
  }
}
