/**
 * `/mergequeue config …`: show the defaults and operators (anyone), change them (operators only), link
 * people to GitHub logins (operators only: the people service).
 */

import type { ConfigAnswer } from '../../../services/workspace.ts';
import {
  renderConfig,
  renderDefaultChanged,
  renderOperatorsChanged,
  renderOperatorsList,
  renderUnfurlGithubSet,
} from '../../blocks/config.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import type { ConfigCommand } from '../../grammars/grammar.ts';
import type { SlackReply } from '../../reply.ts';
import { configureAutopilot } from './autopilot.ts';
import { linkPerson } from './people.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function configure(req: CommandRequest, c: ConfigCommand): Promise<Outcome> {
  const { deps, actor } = req;
  if (c.kind === 'people') return linkPerson(req, c.userId, c.login);
  if (c.kind === 'unfurl') return configureUnfurl(req, c.on);
  if (c.kind === 'autopilot') return configureAutopilot(req, c);
  const { workspace } = deps.services;
  if (c.kind === 'show' || (c.kind === 'operators' && c.op === 'list')) {
    const view = await workspace.show(actor, req.channelId);
    await req.reply.respond(c.kind === 'show' ? renderConfig(view) : renderOperatorsList(view));
    return 'ok';
  }
  const answer =
    c.kind === 'channel'
      ? await workspace.setChannelDefault(actor, req.channelId, c.target)
      : c.kind === 'workspace'
        ? await workspace.setWorkspaceDefault(actor, c.target)
        : await workspace.changeOperators(actor, c.op, c.principals);
  const { reply, outcome } = configReply(answer);
  await req.reply.respond(reply);
  return outcome;
}

/** `config unfurl github on|off`: operators only (the unfurl service checks and audits). */
async function configureUnfurl(req: CommandRequest, on: boolean): Promise<Outcome> {
  const answer = await req.services.unfurls.setGithub(req.actor, on);
  if (answer.answer === 'refused') {
    await req.reply.respond(renderRefusal('change the configuration', answer.because));
    return 'refused';
  }
  await req.reply.respond(renderUnfurlGithubSet(answer.on, answer.changed));
  return answer.changed ? 'ok' : 'noop';
}

function configReply(a: ConfigAnswer): { reply: SlackReply; outcome: Outcome } {
  switch (a.answer) {
    case 'refused':
      return { reply: renderRefusal('change the configuration', a.because), outcome: 'refused' };
    case 'default_changed':
      return { reply: renderDefaultChanged(a.scope, a.target), outcome: 'ok' };
    case 'operators_changed':
      return {
        reply: renderOperatorsChanged(a.op, a.change),
        outcome: a.change.changed.length > 0 ? 'ok' : 'noop',
      };
  }
}
