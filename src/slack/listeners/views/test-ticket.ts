/**
 * The Link a ticket form submitted: what was typed is checked first (a key such as PAY-123, or a link; anything
 * else is refused inside the form, saying what to type), then the test-feeds service links it in Trunk (rights
 * checked again: the form may have stayed open a while) and test-answer.ts announces it in the message's thread
 * or tells the person, in words, why Trunk refused (409, 422, 502, 504).
 */
import type { App, ViewSubmitAction } from '@slack/bolt';
import { parseTestButton, TEST_TICKET_CALLBACK, TEST_TICKET_INPUT } from '../../blocks/test-feeds.ts';
import { actorOf, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { readTicketInput } from '../../grammars/tests.ts';
import { unwrapMetadata } from '../../modals.ts';
import { tellPrivately } from '../../reply.ts';
import { answerTestAction } from '../test-answer.ts';

export function registerTestTicketView(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction, RequestContext>(
    TEST_TICKET_CALLBACK,
    async ({ ack, body, view, client, context }) => {
      const meta = unwrapMetadata(view.private_metadata);
      const test = parseTestButton(meta?.m);
      const typed = view.state.values[TEST_TICKET_INPUT.block]?.[TEST_TICKET_INPUT.action]?.value;
      const ref = readTicketInput(typed);
      if (!meta || !test || !ref.ok) {
        await ack({
          response_action: 'errors',
          errors: {
            [TEST_TICKET_INPUT.block]: ref.ok
              ? 'This form could not be read. Close it and click Link a ticket again.'
              : ref.error.slice(0, 150),
          },
        });
        deps.metrics.interactions.inc({ name: TEST_TICKET_CALLBACK, outcome: 'invalid' });
        return;
      }
      await ack();
      const userId = body.user.id;
      const actor = actorOf(context);
      const privately = { workspaceId: actor.workspace.id, channel: meta.c, userId };
      let outcome = 'failed';
      try {
        const a = await context.services.testFeeds.linkTicket(actor, {
          channelId: meta.c,
          testId: test.testId,
          ticket: ref.ref,
        });
        outcome = await answerTestAction(
          {
            deps,
            client,
            channelId: meta.c,
            userId,
            ticket: ref.ref,
            tell: (reply) => tellPrivately(deps, client, privately, reply),
          },
          'ticket',
          a,
        );
      } catch (err) {
        deps.logger.error({ err }, 'linking a ticket failed');
        await tellPrivately(deps, client, privately, {
          text: 'Something went wrong on our side and no ticket was linked. Try again in a minute.',
        });
      }
      deps.metrics.interactions.inc({ name: TEST_TICKET_CALLBACK, outcome });
    },
  );
}
