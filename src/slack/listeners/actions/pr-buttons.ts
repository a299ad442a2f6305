/**
 * Restart tests, Re-submit and Cancel on a message about one PR. A click acts on the PR's current state
 * (read first: one that moved on is left alone and the message redrawn as it is now), counts once for a
 * double click (a store claim, given back when the attempt failed), updates the message in place and
 * announces the change in the channel. Cancel first asks for confirmation and a reason in a modal.
 */
import type { App } from '@slack/bolt';
import type { PrAction } from '../../../queue/pull-requests.ts';
import { renderInvalidButton } from '../../blocks/errors.ts';
import { escTrim } from '../../blocks/format.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import { buildCancelModal, parsePrButtonValue } from '../../blocks/pr-actions.ts';
import type { SlackDeps } from '../../deps.ts';
import { messageModal } from '../../modals.ts';
import { openModal, sendReply, updateModal } from '../../reply.ts';
import { answerPrClick, tell } from '../pr-change-answer.ts';
import { type PrClick, prClickKey, prQueue } from '../pr-click.ts';
import { registerButtonOf } from './button.ts';
import { type ClickArgs, readClickOf } from './click.ts';

/** Reads a click's untrusted parts; answers and returns undefined when it cannot be acted on. */
async function readPrClick(deps: SlackDeps, args: ClickArgs): Promise<PrClick | undefined> {
  const c = await readClickOf(deps, args, parsePrButtonValue);
  if (!c) return undefined;
  if (!c.channelId) {
    // Every message with PR buttons is in a channel or DM; a click without one is not ours to act on.
    await sendReply(deps, args.respond, renderInvalidButton(), { replace_original: false });
    return undefined;
  }
  return { ...c, channelId: c.channelId };
}

/** Restart tests and Re-submit act at once. */
async function actNow(c: PrClick, action: PrAction): Promise<string> {
  const result = await c.services.prs.change(c.actor, prQueue(c), {
    action,
    prNumber: c.value.prNumber,
    expected: c.value.state,
    clickKey: prClickKey(c, action),
  });
  return answerPrClick(c, result);
}

/**
 * Cancel asks first. The trigger lives 3 s, so the modal opens at once and is filled in once the PR is
 * read: the confirmation, or why it cannot be cancelled (and the message is redrawn as it is now).
 */
async function askToCancel(c: PrClick, triggerId: string): Promise<string> {
  const n = c.value.prNumber;
  const opened = await openModal(
    c.deps,
    c.client,
    triggerId,
    messageModal(`Cancel #${n}`, `Reading #${n} from Trunk…`),
    'the cancel modal',
  );
  const viewId = opened.ok ? opened.viewId : undefined;
  const preview = await c.services.prs.preview(c.actor, prQueue(c), {
    action: 'cancel',
    prNumber: n,
    expected: c.value.state,
  });
  if (preview.outcome !== 'ready') {
    if (viewId) {
      const why =
        preview.outcome === 'noop'
          ? preview.reason
          : preview.outcome === 'refused'
            ? `You can't cancel #${n}: ${preview.because}.`
            : 'Trunk could not be read, so nothing was changed. Try again in a minute.';
      await updateModal(
        c.deps,
        c.client,
        viewId,
        messageModal(`Cancel #${n}`, escTrim(why, 2900)),
        'the cancel modal',
      );
    }
    return answerPrClick(c, preview);
  }
  const form = buildCancelModal(
    {
      value: c.value,
      channelId: c.channelId,
      ephemeral: c.ephemeral,
      ...(c.messageTs ? { messageTs: c.messageTs } : {}),
      ...(c.responseUrl ? { responseUrl: c.responseUrl } : {}),
    },
    preview.current,
  );
  if (!viewId) {
    await tell(c, { text: 'The confirmation could not be opened; try the button again.' });
    return 'failed';
  }
  if (!(await updateModal(c.deps, c.client, viewId, form, 'the cancel modal')))
    throw new Error('views.update of the cancel modal failed');
  return 'ok';
}

export function registerPrButtons(app: App, _deps: SlackDeps): void {
  registerButtonOf(app, ACTIONS.prRestart, readPrClick, (c) => actNow(c, 'restart'));
  registerButtonOf(app, ACTIONS.prResubmit, readPrClick, (c) => actNow(c, 'submit'));
  registerButtonOf(app, ACTIONS.prCancel, readPrClick, askToCancel);
}
