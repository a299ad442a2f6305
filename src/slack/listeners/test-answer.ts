/**
 * What a click on a test's status message (Quarantine, Stop quarantining) or the ticket form answers, shared by
 * actions/test-buttons.ts and views/test-ticket.ts: what was done is announced in the message's thread (Trunk
 * sends no webhook for overrides made with an API key, so the app says it itself) and the message redrawn in
 * place; anything else is told to the person alone, saying why and that nothing changed.
 */
import type { WebClient } from '@slack/web-api';
import type { TestActionAnswer } from '../../services/test-feeds.ts';
import { renderError } from '../blocks/errors.ts';
import {
  renderMissingPermission,
  renderNoV2Key,
  renderOverrideAnnouncement,
  renderOverrideUnchanged,
  renderTestRefused,
  renderTestStatus,
  renderTicketAnnouncement,
  renderTicketRefused,
  renderUnknownTestMessage,
} from '../blocks/test-feeds.ts';
import type { SlackDeps } from '../deps.ts';
import type { SlackReply } from '../reply.ts';
import { postToChannel, updateMessage } from '../reply.ts';
import type { Outcome } from './outcome.ts';

export interface TestAnswerContext {
  deps: SlackDeps;
  client: WebClient;
  channelId: string;
  userId: string;
  /** Tells the person alone (an ephemeral reply, or a DM). */
  tell(reply: SlackReply): Promise<unknown>;
  /** What the person typed, for a ticket. */
  ticket?: string;
}

/** Posts in the thread of the test's message (as the bot); logs when Slack will not take it. */
async function inThread(c: TestAnswerContext, ts: string, reply: SlackReply): Promise<void> {
  await postToChannel(c.deps, c.client, c.channelId, reply, undefined, reply, ts);
}

export async function answerTestAction(
  c: TestAnswerContext,
  action: 'quarantine' | 'unquarantine' | 'ticket',
  a: TestActionAnswer,
): Promise<Outcome> {
  switch (a.answer) {
    case 'overridden':
    case 'ticket_linked': {
      const name = a.message.card.test.name ?? a.message.card.test.id;
      const announcement =
        a.answer === 'overridden'
          ? renderOverrideAnnouncement(a.mode, c.userId, name)
          : renderTicketAnnouncement(a.ticket, c.userId);
      await inThread(c, a.message.ts, announcement);
      await updateMessage(
        c.deps,
        c.client,
        c.channelId,
        a.message.ts,
        renderTestStatus(a.message.card, { appUrl: c.deps.settings.trunkAppUrl }),
        undefined,
      );
      return 'ok';
    }
    case 'may_act':
      return 'ok';
    case 'unchanged':
      await c.tell(renderOverrideUnchanged(a.mode));
      return 'noop';
    case 'unknown_message':
      await c.tell(renderUnknownTestMessage());
      return 'invalid';
    case 'refused':
      await c.tell(renderTestRefused(action, a.because));
      return 'refused';
    case 'no_v2_key':
      await c.tell(renderNoV2Key(action));
      return 'failed';
    case 'missing_permission':
      await c.tell(renderMissingPermission(a.permission, a.detail));
      return 'failed';
    case 'bad_ticket':
      await c.tell({ text: a.error, response_type: 'ephemeral' });
      return 'invalid';
    case 'ticket_refused':
      await c.tell(renderTicketRefused(a, c.ticket ?? ''));
      return 'failed';
    case 'trunk_failed':
      await c.tell(renderError(a.error));
      return 'failed';
  }
}
