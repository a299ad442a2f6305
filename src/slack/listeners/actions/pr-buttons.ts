/**
 * Restart tests, Re-submit and Cancel on a message about one PR. A click acts on the PR's current state
 * (read first: one that moved on is left alone and the message redrawn as it is now), counts once for a
 * double click (a store claim, given back when the attempt failed), updates the message in place and
 * announces the change in the channel. Cancel first asks for confirmation and a reason in a modal.
 */
import type { App, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { formatQueueRef } from '../../../core/target.ts';
import type { PrAction, PrChangeResult } from '../../../queue/pull-requests.ts';
import type { Actor } from '../../../services/actor.ts';
import type { QueueAt } from '../../../services/queue.ts';
import type { SubmittedPullRequest } from '../../../trunk/types.ts';
import { renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderInvalidButton } from '../../blocks/errors.ts';
import { escTrim, mention, slackDate } from '../../blocks/format.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import { renderPr } from '../../blocks/pr.ts';
import {
  buildCancelModal,
  type PrButtonValue,
  parsePrButtonValue,
  renderPrAnnouncement,
  renderPrRefusal,
  renderReadBack,
} from '../../blocks/pr-actions.ts';
import type { SlackDeps } from '../../deps.ts';
import { postToChannel, sendReply, updateMessage } from '../../interaction.ts';
import { messageModal } from '../../modals.ts';
import type { SlackReply } from '../../reply.ts';
import { servicesOf } from '../../services.ts';
import type { WorkspaceTrunk } from '../../workspace.ts';
import { type ClickArgs, readClickOf, registerButtonOf } from './click.ts';

/** One click (or Cancel's confirmation) on a PR message, checked and ready to act on. */
export interface PrClick {
  deps: SlackDeps;
  client: WebClient;
  /** Undefined when the click's response_url could not be used (a modal whose metadata lost it). */
  respond: RespondFn | undefined;
  /** The click's response_url, carried through Cancel's modal to update an ephemeral message. */
  responseUrl?: string;
  workspaceId: string;
  userId: string;
  userTeamId: string | undefined;
  channelId: string;
  messageTs: string | undefined;
  /** Ephemeral messages have no channel copy: only their response_url can change them. */
  ephemeral: boolean;
  value: PrButtonValue;
  trunk: WorkspaceTrunk;
  /** Who clicked (or confirmed), built once for the request. */
  actor: Actor;
}

const DONE_NOTE: Record<PrAction, string> = {
  restart: 'restarted the tests',
  submit: 're-submitted it',
  cancel: 'cancelled it',
};

/** Double clicks of one rendered button (same message, action and shown state) count once. */
export function prClickKey(c: PrClick, action: PrAction): string {
  const v = c.value;
  return `${c.messageTs ?? 'nots'}:pr_${action}:${formatQueueRef(v.ref)}#${v.prNumber}:${v.state}:${v.renderedAt}`;
}

/** Redraws the clicked message with the PR as it is now and the buttons that fit it. */
async function redraw(c: PrClick, pr: SubmittedPullRequest, note?: string): Promise<void> {
  const reply = renderPr({
    ref: c.value.ref,
    pr,
    appUrl: c.deps.config.trunk.appUrl,
    renderedAt: c.deps.now(),
    ...(c.trunk.orgSlug ? { orgSlug: c.trunk.orgSlug } : {}),
    ...(note ? { note } : {}),
    ...(c.value.onNote ? { onNote: true } : {}),
  });
  if (c.ephemeral || !c.messageTs) {
    if (c.respond) await sendReply(c.deps, c.respond, reply, { replace_original: true });
    return;
  }
  await updateMessage(
    c.deps,
    c.client,
    c.channelId,
    c.messageTs,
    { ...reply, response_type: 'in_channel' },
    c.respond,
  );
}

/** Tells the clicker alone, without touching the message. */
async function tell(c: PrClick, reply: SlackReply): Promise<void> {
  if (c.respond) {
    await sendReply(c.deps, c.respond, reply, { replace_original: false });
    return;
  }
  try {
    await c.client.chat.postEphemeral({
      channel: c.channelId,
      user: c.userId,
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
    });
  } catch (err) {
    c.deps.logger.warn({ err }, 'could not tell the user the result of a PR click');
  }
}

/** Answers a PR change: message redrawn, channel told, the clicker told anything only they need to know. */
export async function answerPrClick(c: PrClick, result: PrChangeResult, reason?: string): Promise<string> {
  const { deps } = c;
  const n = c.value.prNumber;
  switch (result.outcome) {
    case 'ok': {
      const at = deps.now();
      const now = result.after ?? result.before;
      if (now) await redraw(c, now, `${mention(c.userId)} ${DONE_NOTE[result.action]} ${slackDate(at)}`);
      // The author's note is a DM: the redrawn note says who did it; the audit keeps the record.
      if (!c.value.onNote)
        await postToChannel(
          deps,
          c.client,
          c.channelId,
          renderPrAnnouncement({
            result,
            ref: c.value.ref,
            prNumber: n,
            userId: c.userId,
            at,
            ...(reason ? { reason } : {}),
          }),
          undefined,
        );
      if (result.confirmedBy === 'read_back') await tell(c, renderReadBack(result, n));
      return 'ok';
    }
    case 'noop':
      // The message shows the PR as it is now, so its buttons match; a repeated click leaves it alone.
      if (result.current) await redraw(c, result.current);
      await tell(c, renderNoop(result.reason));
      return 'noop';
    case 'refused':
      await tell(c, renderPrRefusal(result.action, n, result.because));
      return 'refused';
    case 'failed':
      await tell(c, renderError(result.error));
      return 'failed';
  }
}

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

/** The queue the clicked PR is in. */
export function prQueue(c: PrClick): QueueAt {
  return { ref: c.value.ref, trunk: c.trunk };
}

/** Restart tests and Re-submit act at once. */
async function actNow(c: PrClick, action: PrAction): Promise<string> {
  const result = await servicesOf(c.deps).prs.change(c.actor, prQueue(c), {
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
  let viewId: string | undefined;
  try {
    const opened = await c.client.views.open({
      trigger_id: triggerId,
      view: messageModal(`Cancel #${n}`, `Reading #${n} from Trunk…`),
    });
    viewId = opened.view?.id;
  } catch (err) {
    c.deps.logger.warn({ err }, 'could not open the cancel modal');
  }
  const preview = await servicesOf(c.deps).prs.preview(c.actor, prQueue(c), {
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
      await c.client.views
        .update({ view_id: viewId, view: messageModal(`Cancel #${n}`, escTrim(why, 2900)) })
        .catch((err: unknown) => c.deps.logger.warn({ err }, 'could not update the cancel modal'));
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
  await c.client.views.update({ view_id: viewId, view: form });
  return 'ok';
}

export function register(app: App, deps: SlackDeps): void {
  registerButtonOf(app, deps, ACTIONS.prRestart, readPrClick, (c) => actNow(c, 'restart'));
  registerButtonOf(app, deps, ACTIONS.prResubmit, readPrClick, (c) => actNow(c, 'submit'));
  registerButtonOf(app, deps, ACTIONS.prCancel, readPrClick, askToCancel);
}
