/** Replies of `watch`, `unwatch`, `me` and `config people`: what is followed now, and who is linked to what. */
import type { QueueRef } from '../../core/target.ts';
import type { PersonLink, Watch } from '../../watch/types.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, mention, queueLabel } from './format.ts';
import { context, section } from './kit.ts';

function reply(icon: string, main: string, hint?: string): SlackReply {
  return {
    text: escTrim(main.replace(/[*`]/g, ''), 2900),
    blocks: hint ? [section(`${icon} ${main}`), context(hint)] : [section(`${icon} ${main}`)],
    response_type: 'ephemeral',
  };
}

export function watchLine(w: Watch): string {
  const stuck = w.stuckMinutes ? ` · stuck after ${w.stuckMinutes} min` : '';
  return `*${esc(queueLabel(w.target))}*: ${w.topics.map((t) => code(t)).join(' ')}${stuck} · id ${code(w.id)}`;
}

export function renderWatching(w: Watch, replaced: boolean): SlackReply {
  return reply(
    ':eyes:',
    `This channel ${replaced ? 'now follows' : 'follows'} ${watchLine(w)}`,
    '`/mergequeue watch list` shows every feed here; `/mergequeue unwatch` ends one. Invite the app to a private channel so it can post there.',
  );
}

export function renderWatchList(watches: Watch[]): SlackReply {
  if (watches.length === 0)
    return reply(
      ':eyes:',
      'This channel follows no queue.',
      'Start a feed with `/mergequeue watch acme/web:main` (default topics: state, failed, health).',
    );
  return reply(
    ':eyes:',
    `*This channel follows*\n${watches.map((w) => `• ${watchLine(w)}`).join('\n')}`,
    'End one with `/mergequeue unwatch owner/repo:branch`.',
  );
}

export function renderUnwatched(ref: QueueRef, removed: boolean, others: Watch[]): SlackReply {
  if (removed)
    return reply(
      ':wave:',
      `This channel no longer follows *${esc(queueLabel(ref))}*. Nothing more will be posted here about it.`,
    );
  const hint =
    others.length > 0
      ? `It follows ${others.map((w) => code(queueLabel(w.target))).join(', ')}: name one, e.g. \`/mergequeue unwatch ${esc(queueLabel(others[0]!.target))}\`.`
      : 'It follows no queue; see `/mergequeue watch list`.';
  return reply(
    ':information_source:',
    `This channel does not follow *${esc(queueLabel(ref))}*, so nothing changed.`,
    hint,
  );
}

export function renderPerson(link: PersonLink | undefined): SlackReply {
  if (!link)
    return reply(
      ':bust_in_silhouette:',
      'You have not linked a GitHub login.',
      'Link yours with `/mergequeue me github <login>` to get a note when your PR starts testing, merges or fails.',
    );
  const how = link.verified ? 'confirmed by an operator' : 'linked by you (not checked)';
  return reply(
    ':bust_in_silhouette:',
    `You are linked to GitHub login ${code(link.githubLogin, 60)} (${how}). Notes about your PRs are *${link.notify ? 'on' : 'off'}*.`,
    `\`/mergequeue me notify ${link.notify ? 'off' : 'on'}\` turns them ${link.notify ? 'off' : 'on'}; \`/mergequeue me forget\` removes the link.`,
  );
}

export function renderLinked(link: PersonLink, byOperator: boolean, replaced?: string): SlackReply {
  const who = byOperator ? mention(link.userId) : 'You';
  const moved = replaced ? ` It was linked to ${mention(replaced)} before; that link is gone.` : '';
  return reply(
    ':link:',
    `${who} ${byOperator ? 'is' : 'are'} now linked to GitHub login ${code(link.githubLogin, 60)}${byOperator ? ' (confirmed by an operator)' : ''}.${moved}`,
    byOperator
      ? 'They get a direct message when their PR starts testing, merges or fails, unless they turn it off with `/mergequeue me notify off`.'
      : 'You will get a direct message when your PR starts testing, merges or fails. `/mergequeue me notify off` stops them.',
  );
}

/** A login someone else holds: refused, with who settles it. */
export function renderLoginTaken(login: string): SlackReply {
  return reply(
    ':no_entry:',
    `GitHub login ${code(login, 60)} is already linked to someone else in this workspace, so nothing was changed.`,
    'If it is yours, ask an operator to settle it with `/mergequeue config people @you <login>`.',
  );
}

export function renderLinkInvalid(message: string): SlackReply {
  return reply(':warning:', escTrim(message, 1500), 'Nothing was changed.');
}

export function renderForgotten(had: boolean): SlackReply {
  return had
    ? reply(':wastebasket:', 'Your GitHub link is removed. No more notes about your PRs.')
    : reply(
        ':information_source:',
        'You had no GitHub link, so nothing changed.',
        'Link one with `/mergequeue me github <login>`.',
      );
}

export function renderNotify(on: boolean, linked: boolean): SlackReply {
  // Without a link, the only notes are about PRs the person submitted from Slack (issue 29).
  if (!linked)
    return reply(
      on ? ':bell:' : ':no_bell:',
      on
        ? 'Notes about PRs you submit from Slack are on.'
        : 'Notes about PRs you submit from Slack are off. Nothing will be sent to you.',
      'For notes about your own PRs, link your GitHub login with `/mergequeue me github <login>`.',
    );
  return reply(
    on ? ':bell:' : ':no_bell:',
    on ? 'Notes about your PRs are on.' : 'Notes about your PRs are off. Nothing will be sent to you.',
  );
}

/** What a channel's feed change did, for the announcement in that channel. */
export type FeedChange =
  | { kind: 'started'; watch: Watch }
  | { kind: 'changed'; watch: Watch; before: Watch }
  | { kind: 'ended'; watch: Watch };

function feedSettings(w: Pick<Watch, 'topics' | 'stuckMinutes'>): string {
  const stuck = w.stuckMinutes ? `, stuck after ${w.stuckMinutes} min` : '';
  return `${w.topics.map((t) => code(t)).join(' ')}${stuck}`;
}

/**
 * Told to the whole channel whenever its feed starts, changes or ends (DESIGN, "Feeds"): who did it and
 * what changed, so a feed is never rewritten or ended silently.
 */
export function renderFeedAnnouncement(change: FeedChange, userId: string): SlackReply {
  const queue = `*${esc(queueLabel(change.watch.target))}*`;
  const main =
    change.kind === 'started'
      ? `${mention(userId)} started a feed of ${queue} in this channel: ${feedSettings(change.watch)}.`
      : change.kind === 'changed'
        ? `${mention(userId)} changed this channel's feed of ${queue}: ${feedSettings(change.before)} → ${feedSettings(change.watch)}.`
        : `${mention(userId)} ended this channel's feed of ${queue}: nothing more will be posted here about it.`;
  const hint =
    change.kind === 'ended'
      ? `\`/mergequeue watch ${esc(queueLabel(change.watch.target))}\` starts it again.`
      : '`/mergequeue watch list` shows every feed here; `/mergequeue unwatch` ends one.';
  return { ...reply(change.kind === 'ended' ? ':wave:' : ':eyes:', main, hint), response_type: 'in_channel' };
}
