/** `/mergequeue prs [target] [state]`: the queue's PRs as listPullRequests reports them, and how many more. */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { PrListing } from '../../queue/pull-requests.ts';
import type { PullRequestState } from '../../trunk/types.ts';
import type { SlackReply } from '../reply.ts';
import { esc, link, plural, queueLabel, trunkQueueUrl } from './format.ts';
import { context, header, sectionsOfLines } from './kit.ts';
import { prLine } from './status.ts';

/** Slack allows 50 blocks: a header, the sections of PR lines and two context lines. */
const MAX_SECTIONS = 45;

export interface PrsInput {
  ref: QueueRef;
  state?: PullRequestState;
  listing: PrListing;
  appUrl?: string;
  orgSlug?: string;
}

export function renderPrs(input: PrsInput): SlackReply {
  const { ref, listing } = input;
  const label = queueLabel(ref);
  const which =
    (input.state ? esc(input.state.replaceAll('_', ' ')) : 'not yet merged, failed or cancelled') +
    (listing.concludedSince !== undefined
      ? ` since ${new Date(listing.concludedSince).toISOString().slice(0, 10)}`
      : '');
  const trunk = link(trunkQueueUrl(input.appUrl, input.orgSlug, ref), 'Open in Trunk');
  const moreText = (n: number) =>
    `…and ${listing.moreAtLeast ? 'at least ' : ''}${plural(n, 'more PR')} (${trunk}, or narrow it with \`/mergequeue prs ${esc(label)} <state>\`)`;
  const blocks: KnownBlock[] = [header(`PRs in ${label}`)];
  const total = listing.shown.length + listing.more;
  if (listing.shown.length === 0) {
    blocks.push(context(`No PRs ${which} in ${esc(label)} · ${trunk}`));
  } else {
    blocks.push(
      context(
        `${listing.moreAtLeast ? 'At least ' : ''}${plural(total, 'PR')} ${which} · showing ${listing.shown.length}`,
      ),
    );
    const lines = listing.shown.map((pr) => prLine(ref, pr));
    let cut = 0;
    const sections = sectionsOfLines(lines, MAX_SECTIONS, (n) => {
      cut = n;
      return moreText(n + listing.more);
    });
    blocks.push(...sections);
    if (cut === 0 && listing.more > 0) blocks.push(context(moreText(listing.more)));
  }
  if (listing.cutShort)
    blocks.push(
      context(
        `:hourglass: *Incomplete:* Trunk was slow to answer, so this counts only the PRs it sent in time. See them all: ${trunk}, or run \`/mergequeue prs ${esc(label)}\` again in a minute.`,
      ),
    );
  const more = listing.more > 0 ? ` and ${listing.moreAtLeast ? 'at least ' : ''}${listing.more} more` : '';
  return {
    text: `${listing.shown.length} PRs ${input.state ?? 'open'} in ${label}${more}`,
    blocks,
    response_type: 'ephemeral',
  };
}
