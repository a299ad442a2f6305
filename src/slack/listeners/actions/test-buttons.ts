/**
 * Quarantine, Stop quarantining and Link a ticket on a test's status message (blocks/test-feeds.ts). Each reads
 * the click (the button carries only the test's id), asks the test-feeds service (rights, the v2 key, a double
 * click counted once, audit) and answers with test-answer.ts. Link a ticket opens the form at once when the
 * person may act on the test; the form's submission is views/test-ticket.ts's. Open in Trunk is a link button.
 */
import type { App } from '@slack/bolt';
import type { QuarantineMode } from '../../../flaky/types.ts';
import { buildTicketModal, parseTestButton, TEST_ACTIONS } from '../../blocks/test-feeds.ts';
import type { SlackDeps } from '../../deps.ts';
import { wrapMetadata } from '../../modals.ts';
import { openModal, sendReply } from '../../reply.ts';
import { answerTestAction, type TestAnswerContext } from '../test-answer.ts';
import { registerButtonOf } from './button.ts';
import { type ClickOf, readClickOf } from './click.ts';

type TestClick = ClickOf<{ testId: string }> & { channelId: string };

async function readTestClick(
  deps: SlackDeps,
  args: Parameters<typeof readClickOf>[1],
): Promise<TestClick | undefined> {
  const c = await readClickOf(deps, args, parseTestButton);
  if (!c) return undefined;
  if (!c.channelId) {
    await sendReply(
      deps,
      args.respond,
      { text: 'This button only works on a message in a channel.' },
      { replace_original: false },
    );
    return undefined;
  }
  return { ...c, channelId: c.channelId };
}

function answerContext(c: TestClick): TestAnswerContext {
  return {
    deps: c.deps,
    client: c.client,
    channelId: c.channelId,
    userId: c.userId,
    tell: (reply) => sendReply(c.deps, c.respond, reply, { replace_original: false }),
  };
}

function overrideButton(mode: QuarantineMode) {
  return async (c: TestClick): Promise<string> => {
    const a = await c.services.testFeeds.quarantine(c.actor, {
      channelId: c.channelId,
      testId: c.value.testId,
      mode,
    });
    return answerTestAction(answerContext(c), mode === 'alwaysQuarantine' ? 'quarantine' : 'unquarantine', a);
  };
}

async function ticketButton(c: TestClick, triggerId: string): Promise<string> {
  const a = await c.services.testFeeds.mayAct(c.actor, {
    channelId: c.channelId,
    testId: c.value.testId,
  });
  if (a.answer !== 'may_act') return answerTestAction(answerContext(c), 'ticket', a);
  const opened = await openModal(
    c.deps,
    c.client,
    triggerId,
    buildTicketModal(
      wrapMetadata(c.channelId, JSON.stringify({ t: c.value.testId })),
      a.message.card.test.name ?? a.message.card.test.id,
    ),
    'the ticket modal',
  );
  if (!opened.ok) throw new Error(`views.open failed: ${opened.code}`);
  return 'ok';
}

export function registerTestButtons(app: App, deps: SlackDeps): void {
  registerButtonOf(app, TEST_ACTIONS.quarantine, readTestClick, overrideButton('alwaysQuarantine'));
  registerButtonOf(app, TEST_ACTIONS.unquarantine, readTestClick, overrideButton('clear'));
  registerButtonOf(app, TEST_ACTIONS.ticket, readTestClick, ticketButton);
  // A link button still sends an action; acknowledged and counted, nothing else to do.
  app.action(TEST_ACTIONS.open, async ({ ack }) => {
    await ack();
    deps.metrics.interactions.inc({ name: TEST_ACTIONS.open, outcome: 'ok' });
  });
}
