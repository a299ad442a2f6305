import type { PrAction, PrChangeResult } from '../../queue/pull-requests.ts';
import type { SubmittedPullRequest } from '../../trunk/types.ts';
import { renderNoop } from '../blocks/announcement.ts';
import { renderError } from '../blocks/errors.ts';
import { mention, slackDate } from '../blocks/format.ts';
import { renderPr } from '../blocks/pr.ts';
import { renderPrAnnouncement, renderPrRefusal, renderReadBack } from '../blocks/pr-actions.ts';
import type { SlackReply } from '../reply.ts';
import { postEphemeral, postToChannel, sendReply, updateMessage } from '../reply.ts';
import type { PrClick } from './pr-click.ts';

const DONE_NOTE: Record<PrAction, string> = {
  restart: 'restarted the tests',
  submit: 're-submitted it',
  cancel: 'cancelled it',
};

/** Redraws the clicked message with the PR as it is now and the buttons that fit it. */
async function redraw(c: PrClick, pr: SubmittedPullRequest, note?: string): Promise<void> {
  const reply = renderPr({
    ref: c.value.ref,
    pr,
    appUrl: c.deps.settings.trunkAppUrl,
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
export async function tell(c: PrClick, reply: SlackReply): Promise<void> {
  if (c.respond) {
    await sendReply(c.deps, c.respond, reply, { replace_original: false });
    return;
  }
  await postEphemeral(c.deps, c.client, { channel: c.channelId, userId: c.userId }, reply);
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
