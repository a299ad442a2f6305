/**
 * `/mergequeue freeze add|list|remove|skip`: parsed in the person's Slack time zone (users.info), then the
 * freeze service decides and changes; refusals are answered privately, changes told to the channel, where
 * the window's starts and ends will be announced.
 */
import type { FreezeAnswer, FreezeRequest } from '../../../services/freeze.ts';
import { renderNoTarget, renderRefusal, renderUsageError } from '../../blocks/errors.ts';
import {
  renderFreezeHelp,
  renderSkip,
  renderWindowAdded,
  renderWindowList,
  renderWindowNotFound,
  renderWindowRemoved,
} from '../../blocks/freeze.ts';
import { FREEZE_USAGE, parseFreezeCommand } from '../../grammars/freeze.ts';
import { slackTextToPlain } from '../../grammars/grammar.ts';
import type { SlackReply } from '../../reply.ts';
import { postToChannel } from '../../reply.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function freeze(req: CommandRequest, text: string): Promise<Outcome> {
  const { deps } = req;
  const { actor } = req;
  // Only `add` needs the person's zone (users.info, read once for the request and cached by the directory).
  const tz = /^\s*add\b/i.test(text) ? (await actor.standing()).tz : undefined;
  // Mentions and links in a reason are kept as the words typed, so nothing in it pings when shown again.
  const parsed = parseFreezeCommand(slackTextToPlain(text), { ...(tz ? { tz } : {}), now: deps.now() });
  if (!parsed.ok) {
    await req.reply.respond(renderUsageError(parsed.error, FREEZE_USAGE));
    return 'invalid';
  }
  const c = parsed.value;
  if (c.kind === 'help') {
    await req.reply.respond(renderFreezeHelp());
    return 'ok';
  }
  const request: FreezeRequest =
    c.kind === 'add'
      ? { kind: 'add', channelId: req.channelId, add: c.add }
      : c.kind === 'list'
        ? { kind: 'list' }
        : { kind: c.kind, id: c.id };
  const a = await deps.services.freeze.handle(actor, request);
  const [reply, outcome, toChannel] = render(a, req.userId);
  if (toChannel) await tellChannel(req, reply);
  else await req.reply.respond(reply);
  return outcome;
}

/** The reply, the outcome counted, and whether the channel should hear it (a change) or only the person. */
function render(a: FreezeAnswer, userId: string): [SlackReply, Outcome, boolean] {
  switch (a.answer) {
    case 'listed':
      return [renderWindowList(a.views, a.now), 'ok', false];
    case 'no_target':
      return [renderNoTarget(), 'invalid', false];
    case 'refused':
      return [renderRefusal(a.what, a.because), 'refused', false];
    case 'added':
      return [renderWindowAdded(a.view, userId), 'ok', true];
    case 'removed':
      return [renderWindowRemoved(a.view, userId), 'ok', true];
    case 'not_found':
      return [renderWindowNotFound(a.id), 'invalid', false];
    case 'skip': {
      const reply = renderSkip(a.result, userId, a.id);
      if (a.result.outcome === 'skipped') return [reply, 'ok', true];
      return [reply, a.result.outcome === 'not_found' ? 'invalid' : 'noop', false];
    }
  }
}

/** A change the channel should know about: posted there, or in_channel through respond when the bot cannot. */
async function tellChannel(req: CommandRequest, reply: SlackReply): Promise<void> {
  await postToChannel(req.deps, req.client, req.channelId, reply, req.respond);
}
