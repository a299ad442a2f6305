/**
 * `/mergequeue me …`: a person's own GitHub login, for notes about their PRs (the people service decides
 * and stores; this file renders).
 */
import type { PeopleAnswer } from '../../../services/people.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { renderForgottenRecords } from '../../blocks/people.ts';
import {
  renderForgotten,
  renderLinked,
  renderLinkInvalid,
  renderLoginTaken,
  renderNotify,
  renderPerson,
} from '../../blocks/watch.ts';
import type { MeCommand } from '../../grammars/watch.ts';
import type { SlackReply } from '../../reply.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function me(req: CommandRequest, c: MeCommand): Promise<Outcome> {
  const { people } = req.services;
  const answer =
    c.kind === 'show'
      ? await people.show(req.actor)
      : c.kind === 'forget'
        ? await people.forget(req.actor)
        : c.kind === 'notify'
          ? await people.notify(req.actor, c.on)
          : await people.linkSelf(req.actor, c.login);
  const { reply, outcome } = meReply(answer);
  await req.reply.respond(reply);
  return outcome;
}

export function meReply(a: PeopleAnswer): { reply: SlackReply; outcome: Outcome } {
  switch (a.answer) {
    case 'person':
      return { reply: renderPerson(a.link), outcome: 'ok' };
    case 'forgotten':
      return {
        reply: a.forgotten ? renderForgottenRecords(a.forgotten) : renderForgotten(a.had),
        outcome: a.had ? 'ok' : 'noop',
      };
    case 'notify':
      return { reply: renderNotify(a.on, a.linked), outcome: a.linked ? 'ok' : 'noop' };
    case 'linked':
      return { reply: renderLinked(a.link, a.byOperator, a.replaced), outcome: 'ok' };
    case 'invalid':
      return { reply: renderLinkInvalid(a.message), outcome: 'invalid' };
    case 'taken':
      return { reply: renderLoginTaken(a.login), outcome: 'refused' };
    case 'not_operator':
      return { reply: renderRefusal('link people to GitHub logins', a.because), outcome: 'refused' };
    case 'not_own_person':
      return {
        reply: renderRefusal(
          'link a GitHub login to yourself',
          a.because,
          'An operator can link people with `/mergequeue config people @person <login>`. Nothing was changed.',
        ),
        outcome: 'refused',
      };
  }
}
