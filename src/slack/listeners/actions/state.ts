/**
 * Pause / Drain / Resume buttons on the status message. Pause and Drain open a small modal asking for an
 * optional reason (the change happens when it is submitted: listeners/views/reason.ts); Resume acts at once
 * after Slack's confirm dialog. Either way the change acts on the queue's current state (the domain compares
 * it with what the message showed), counts a double click once, updates the message in place, is announced
 * in the channel and audited. Refusals are ephemeral and change nothing.
 */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import { section } from '../../blocks/kit.ts';
import { buildReasonModal, type ReasonAction } from '../../blocks/reason-modal.ts';
import type { SlackDeps } from '../../deps.ts';
import { openModal, sendReply } from '../../reply.ts';
import type { Outcome } from '../outcome.ts';
import { mayChangeQueue } from '../queue-change.ts';
import { registerButton } from './button.ts';
import type { Click } from './click.ts';
import { applyClickChange, clickKeyOf, clickOrigin } from './status-click.ts';

export function registerStateButtons(app: App, _deps: SlackDeps): void {
  registerButton(app, ACTIONS.pause, (c) => openReasonModal(c, 'pause'));
  registerButton(app, ACTIONS.drain, (c) => openReasonModal(c, 'drain'));
  registerButton(app, ACTIONS.resume, (c) =>
    applyClickChange(c, {
      refusedWhat: `resume ${formatQueueRef(c.value.ref)}`,
      verb: 'resumed',
      request: { kind: 'state', desired: 'running', expected: c.value.state, clickKey: clickKeyOf(c) },
    }),
  );
}

/**
 * Operators get the modal (the trigger_id lives 3 s, so it opens before anything slow); anyone else is
 * refused here, audited, without a form they could not use. The submission checks again.
 */
async function openReasonModal(c: Click, action: ReasonAction): Promise<Outcome> {
  const { deps } = c;
  const target = formatQueueRef(c.value.ref);
  if (!(await mayChangeQueue(clickOrigin(c), action, target, `${action} ${target}`))) return 'refused';
  const view = buildReasonModal({
    action,
    value: c.value,
    channelId: c.channelId ?? '',
    ...(c.messageTs ? { messageTs: c.messageTs } : {}),
    ephemeral: c.ephemeral,
    ...(c.home ? { home: true } : {}),
  });
  const opened = await openModal(deps, c.client, c.triggerId, view, `the ${action} modal`);
  if (opened.ok) return 'ok';
  const text = `The ${action} form could not be opened (Slack answered \`${opened.code}\`), so nothing was changed. Press the button again, or type \`/mergequeue ${action} ${formatQueueRef(c.value.ref)} <reason>\`.`;
  await sendReply(
    deps,
    c.respond,
    { text, blocks: [section(`:warning: ${text}`)] },
    { replace_original: false },
  );
  return 'failed';
}
