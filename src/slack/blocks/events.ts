/**
 * Queue events as Slack messages: a channel feed post (one event in detail, or a burst of one queue grouped
 * into one message), a health alert with the status message's own buttons, and the note to a PR's author.
 * Pure: plain events in, Block Kit out.
 */
import type { ActionsBlockElement, KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import { classifyKick, kickFactsOf } from '../../kicks/classify.ts';
import { explainReadiness } from '../../queue/readiness.ts';
import type { PrStory } from '../../queue/story.ts';
import type { EventPr, SettingChange, WatchEvent } from '../../watch/types.ts';
import type { SlackReply } from '../reply.ts';
import {
  code,
  esc,
  escTrim,
  link,
  mention,
  plural,
  prUrl,
  queueLabel,
  slackDate,
  trunkQueueUrl,
} from './format.ts';
import { slowSentence } from './health.ts';
import { ACTIONS, encodeButtonValue } from './ids.ts';
import { actions, button, context, section, sectionsOfLines } from './kit.ts';
import { prActionButtons } from './pr-actions.ts';
import { stateButtons } from './status.ts';
import { endingText, reasonWords } from './story.ts';

export interface EventLinks {
  appUrl?: string;
  orgSlug?: string;
}

type HealthEvent = Extract<WatchEvent, { kind: 'health' }>;
/** Posted on their own, never grouped in a feed post: health alerts and slow-queue alerts. */
type AlertEvent = Extract<WatchEvent, { kind: 'health' | 'slow' }>;
type LeftEvent = Extract<WatchEvent, { kind: 'failed' | 'cancelled' }>;
type AutopilotEvent = Extract<WatchEvent, { kind: 'autopilot' }>;

/** PR number → its story from Trunk v2 (the workspace has a v2 key and the read answered in time). */
export type EventStories = ReadonlyMap<number, PrStory>;

/**
 * The story that tells how a PR left, when v2 has it: its latest attempt ended the way the event says
 * (a history that lags behind the poll, or an attempt since, leaves v1's words).
 */
export function leftStory(e: WatchEvent, stories: EventStories | undefined): PrStory | undefined {
  if (!stories || (e.kind !== 'failed' && e.kind !== 'cancelled')) return undefined;
  const story = stories.get(e.pr.number);
  return story?.ending?.kind === e.kind ? story : undefined;
}

const KIND_EMOJI: Record<WatchEvent['kind'], string> = {
  state: ':gear:',
  submitted: ':inbox_tray:',
  testing: ':test_tube:',
  merged: ':white_check_mark:',
  failed: ':x:',
  cancelled: ':no_entry_sign:',
  left: ':outbox_tray:',
  health: ':rotating_light:',
  autopilot: ':repeat:',
  slow: ':snail:',
};

const KIND_WORDS: Record<Exclude<WatchEvent['kind'], 'state' | 'health' | 'slow'>, string> = {
  submitted: 'entered the queue',
  testing: 'started testing',
  merged: 'merged',
  failed: 'failed and left the queue',
  cancelled: 'was cancelled and left the queue',
  left: 'left the queue',
  autopilot: 'was submitted again by the app',
};

function show(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '(none)' : v.map(String).join(', ');
  if (v === true) return 'on';
  if (v === false) return 'off';
  if (v === undefined || v === null) return '(unset)';
  return String(v);
}

/** `#12 Title by octocat`; a webhook names no title (nor, for a batch, the authors): those parts are left out. */
function prText(ref: QueueRef, pr: EventPr): string {
  const title = pr.title ? ` ${escTrim(pr.title, 100)}` : '';
  const author = pr.author ? ` by ${escTrim(pr.author, 60)}` : '';
  return `${link(prUrl(ref.repo, pr.number), `#${pr.number}`)}${title}${author}`;
}

function changeLine(c: SettingChange): string {
  return `• ${esc(c.field)}: ${code(show(c.before), 200)} → ${code(show(c.after), 200)}`;
}

function whoChanged(e: Extract<WatchEvent, { kind: 'state' }>): string {
  if (e.outsideSlack) return 'changed outside Slack';
  const by = e.changes.find((c) => c.by)?.by;
  return by ? `changed by ${mention(by)}` : 'changed from Slack';
}

/**
 * The kick's class and evidence (issue 29): classified with the queue's history when the delivery did
 * (`story.kick`), else from what the event and the story say alone.
 */
export function kickOf(e: LeftEvent, story?: PrStory): { kickClass: string; evidence: string } {
  return story?.kick ?? classifyKick(kickFactsOf(e.kind, story, e.reason));
}

function kickLine(kick: { kickClass: string; evidence: string }): string {
  return `:label: Kind of kick: *${esc(kick.kickClass)}* — ${kick.evidence}`;
}

/** How the app re-submitted a kicked PR, or why Trunk would not take it back. */
function autopilotSentence(e: AutopilotEvent): string {
  const pr = prText(e.target, e.pr);
  if (e.outcome === 'refused')
    return `:warning: The app tried to submit ${pr} again (its kick was *${esc(e.kickClass)}*), and Trunk refused: ${escTrim(e.refusal ?? 'no reason given', 400)}`;
  const how = [
    e.priority !== undefined ? `priority ${e.priority}` : undefined,
    e.noBatch ? 'not batched' : undefined,
  ].filter(Boolean);
  return `${KIND_EMOJI.autopilot} ${pr} ${KIND_WORDS.autopilot}${how.length > 0 ? ` (${how.join(', ')}, as before)` : ''}: its kick was *${esc(e.kickClass)}* — ${e.evidence}`;
}

function ruleContext(e: AutopilotEvent): string {
  return `By the rule ${code(e.rule, 200)} · \`/mergequeue config autopilot\` shows it`;
}

/** Why a PR that left failed, in plain words, when Trunk said anything about it. */
function whyLines(e: LeftEvent): string[] {
  if (!e.readiness) return [];
  const x = explainReadiness({
    prNumber: e.pr.number,
    state: e.kind,
    readiness: e.readiness,
    prBaseBranch: e.prBaseBranch ?? '',
    isCurrentlySubmittedToQueue: false,
  });
  return x.reasons.filter((r) => r.ok !== true).map((r) => `• ${escTrim(r.text, 400)}`);
}

/**
 * What we can tell of a PR that left failed or cancelled: the readiness problems Trunk reports, else, for
 * a failure, that its test run failed and where its checks are. The v1 contract names no test run for a
 * PR (getSubmittedPullRequest and getQueue carry no test run id), so the run cannot be fetched here; the
 * PR's checks page lists the queue's checks, and `/mergequeue run <id>` reads a run whose id one has.
 */
function fateSection(e: LeftEvent, story?: PrStory): string {
  // With v2: the reason and the next step, the same paragraph `why` shows (the note and the feed agree).
  if (story) {
    const text = endingText(e.target, e.pr.number, story);
    return text.length > 3000 ? `${text.slice(0, 2990)}…` : text;
  }
  const why = whyLines(e);
  if (e.reason) why.unshift(`• ${reasonWords(e.reason)}`);
  if (why.length > 0) return `*Why, as Trunk reports it*\n${why.join('\n')}`;
  const label = esc(queueLabel(e.target));
  const checks = prUrl(e.target.repo, e.pr.number);
  const where = checks ? link(`${checks}/checks`, `#${e.pr.number}'s checks`) : `#${e.pr.number}'s checks`;
  if (e.kind === 'failed')
    return `Trunk reports nothing wrong with its readiness, so a required check failed in the queue's test run: see ${where}. With the run's id, \`/mergequeue run <id> ${label}\` lists its checks.`;
  return `Trunk did not say why; see ${where}, or \`/mergequeue pr ${e.pr.number} ${label}\`.`;
}

/** One event as one line (grouped messages); a PR that left says why when its story is known. */
export function eventLine(e: WatchEvent, stories?: EventStories): string {
  const emoji = KIND_EMOJI[e.kind];
  switch (e.kind) {
    case 'state':
      return `${emoji} ${e.changes
        .slice(0, 6)
        .map((c) => `${esc(c.field)} ${code(show(c.before), 80)} → ${code(show(c.after), 80)}`)
        .join(', ')}${e.changes.length > 6 ? ` and ${e.changes.length - 6} more` : ''} (${whoChanged(e)})`;
    case 'health':
      return `${emoji} ${healthSentence(e)}`;
    case 'autopilot':
      return autopilotSentence(e);
    case 'slow':
      return `${emoji} ${slowSentence(e)}`;
    default: {
      const ending = leftStory(e, stories)?.ending;
      const why =
        ending && 'reason' in ending
          ? reasonWords(ending.reason)
          : 'reason' in e
            ? reasonWords(e.reason)
            : undefined;
      const kick =
        e.kind === 'failed' || e.kind === 'cancelled' ? kickOf(e, leftStory(e, stories)) : undefined;
      const kind = kick && kick.kickClass !== 'unknown' ? ` · *${esc(kick.kickClass)}*` : '';
      return `${emoji} ${prText(e.target, e.pr)} ${KIND_WORDS[e.kind]}${why ? `: ${why}` : ''}${kind}`;
    }
  }
}

function healthSentence(e: HealthEvent): string {
  const label = `*${esc(queueLabel(e.target))}*`;
  if (e.phase === 'recovered')
    return e.condition === 'stuck'
      ? `${label} recovered: it is no longer stuck (${e.state === 'paused' || e.state === 'draining' ? `it is ${esc(e.state)} now` : 'PRs are moving again'}).`
      : // e.state is the state it recovered to; what it came out of is wasState (paused or draining).
        `${label} recovered: it is ${esc(e.state)} again (it was ${esc(e.wasState ?? 'paused or draining')}; stopped since ${slackDate(e.since)}).`;
  if (e.condition === 'stuck')
    return `${label} looks stuck: ${plural(e.waitingPrs, 'PR')} waiting and nothing has started testing or merged for more than ${plural(e.thresholdMinutes, 'minute')} (since ${slackDate(e.since)}).`;
  return `${label} has been ${esc(e.state)} for more than ${plural(Math.round(e.thresholdMinutes / 60), 'hour')} (since ${slackDate(e.since)}), with ${plural(e.waitingPrs, 'PR')} waiting.`;
}

function footer(ref: QueueRef, at: number, l: EventLinks): KnownBlock {
  return context(`${slackDate(at)} · ${link(trunkQueueUrl(l.appUrl, l.orgSlug, ref), 'Open in Trunk')}`);
}

/** The buttons of a health alert: the status message's own actions, so a click works exactly like there. */
function healthButtons(e: HealthEvent): ActionsBlockElement[] {
  // Concurrency is not shown on an alert: 0 keeps the concurrency buttons' check out of it.
  const value = encodeButtonValue({ ref: e.target, state: e.state, concurrency: 0, renderedAt: e.at });
  return [button('Status', ACTIONS.refresh, { value }), ...stateButtons(e.target, e.state, value)];
}

export function renderHealth(e: HealthEvent, l: EventLinks = {}): SlackReply {
  const blocks: KnownBlock[] = [
    section(`${e.phase === 'alert' ? ':rotating_light:' : ':white_check_mark:'} ${healthSentence(e)}`),
  ];
  if (e.phase === 'alert') blocks.push(actions(healthButtons(e)));
  blocks.push(footer(e.target, e.at, l));
  const label = queueLabel(e.target);
  const text =
    e.phase === 'recovered'
      ? `${label} recovered`
      : e.condition === 'stuck'
        ? `${label} looks stuck`
        : `${label} has been ${e.state} for a long time`;
  return { text: esc(text), blocks };
}

/** One event in full: before → after for settings, why a PR failed. */
function renderOne(e: Exclude<WatchEvent, AlertEvent>, l: EventLinks, stories?: EventStories): SlackReply {
  const label = queueLabel(e.target);
  const blocks: KnownBlock[] = [];
  let text: string;
  if (e.kind === 'state') {
    blocks.push(section(`${KIND_EMOJI.state} *${esc(label)}* ${whoChanged(e)}`));
    const lines = e.changes.slice(0, 20).map(changeLine);
    if (e.changes.length > 20) lines.push(`• …and ${e.changes.length - 20} more`);
    if (lines.length > 0) blocks.push(section(lines.join('\n')));
    text = `${label}: ${e.changes.map((c) => `${c.field} ${show(c.before)} → ${show(c.after)}`).join(', ')} (${e.outsideSlack ? 'changed outside Slack' : 'changed from Slack'})`;
  } else if (e.kind === 'autopilot') {
    blocks.push(section(`${autopilotSentence(e)} in *${esc(label)}*`));
    blocks.push(context(ruleContext(e)));
    text =
      e.outcome === 'refused'
        ? `Trunk refused the app's re-submission of #${e.pr.number} in ${label}`
        : `#${e.pr.number} ${KIND_WORDS.autopilot} in ${label} (${e.kickClass})`;
  } else {
    blocks.push(
      section(`${KIND_EMOJI[e.kind]} ${prText(e.target, e.pr)} ${KIND_WORDS[e.kind]} in *${esc(label)}*`),
    );
    if (e.kind === 'failed' || e.kind === 'cancelled') {
      const story = leftStory(e, stories);
      blocks.push(section(fateSection(e, story)));
      blocks.push(context(kickLine(kickOf(e, story))));
    }
    text = `#${e.pr.number} ${e.pr.title} ${KIND_WORDS[e.kind]} in ${label}`;
  }
  blocks.push(footer(e.target, e.at, l));
  return { text: esc(text).slice(0, 2900), blocks };
}

/**
 * A channel's post for events of one queue: one event in full, several grouped in one message (so a busy
 * queue does not flood the channel). Health events are rendered on their own (renderHealth).
 */
export function renderFeed(
  events: Array<Exclude<WatchEvent, AlertEvent>>,
  l: EventLinks = {},
  stories?: EventStories,
): SlackReply {
  const first = events[0];
  if (!first) throw new Error('renderFeed needs at least one event');
  if (events.length === 1) return renderOne(first, l, stories);
  const label = queueLabel(first.target);
  const blocks: KnownBlock[] = [section(`*${esc(label)}* · ${plural(events.length, 'update')}`)];
  blocks.push(
    ...sectionsOfLines(
      events.map((e) => eventLine(e, stories)),
      8,
      (n) => `_…and ${n} more_`,
    ),
  );
  blocks.push(footer(first.target, events[events.length - 1]!.at, l));
  const kinds = [...new Set(events.map((e) => e.kind))].join(', ');
  return { text: esc(`${label}: ${plural(events.length, 'update')} (${kinds})`), blocks };
}

/** Who a note goes to: their GitHub login, and whether an operator made or confirmed that link. */
export interface NoteReader {
  githubLogin: string;
  verified: boolean;
  /** Not the author but the person who submitted the PR from Slack (issue 29). */
  role?: 'submitter';
}

/**
 * The direct message to a linked author about their own PR. A PR that failed or was cancelled gets the
 * buttons that fit its state (prActionButtons, handled by the PR buttons' listeners). A self-made link
 * gives no rights over the PR, so its reader gets Open in Trunk only and is told how to get the rest,
 * rather than buttons that would refuse them.
 */
export function renderAuthorNote(
  e: Extract<WatchEvent, { kind: 'testing' | 'merged' | 'failed' | 'cancelled' | 'autopilot' }>,
  to: NoteReader,
  l: EventLinks = {},
  /** The PR's story from Trunk v2, when the workspace has a v2 key and it was read. */
  story?: PrStory,
): SlackReply {
  const label = queueLabel(e.target);
  const whose = to.role === 'submitter' ? 'The PR you submitted,' : 'Your PR';
  if (e.kind === 'autopilot') return renderAutopilotNote(e, to, l);
  const blocks: KnownBlock[] = [
    section(
      `${KIND_EMOJI[e.kind]} ${whose} ${prText(e.target, e.pr)}${to.role === 'submitter' ? ',' : ''} ${KIND_WORDS[e.kind]} in *${esc(label)}*.`,
    ),
  ];
  const buttons = e.kind === 'failed' || e.kind === 'cancelled';
  if (buttons) {
    const told = leftStory(e, story ? new Map([[e.pr.number, story]]) : undefined);
    blocks.push(section(fateSection(e, told)));
    blocks.push(context(kickLine(kickOf(e, told))));
    blocks.push(
      prActionButtons({
        ref: e.target,
        pr: { prNumber: e.pr.number, state: e.pr.state ?? e.kind },
        renderedAt: e.at,
        onNote: true,
        ...(to.verified || to.role === 'submitter' ? {} : { openOnly: true }),
        ...l,
      }),
    );
    if (!to.verified && to.role !== 'submitter')
      blocks.push(
        context(
          `Buttons to act on your PR come with these notes once an operator confirms your link: ask one to run ${code(`/mergequeue config people @you ${to.githubLogin}`, 120)}.`,
        ),
      );
  }
  blocks.push(
    context(
      // With buttons, Open in Trunk is one of them.
      `${slackDate(e.at)}${buttons ? '' : ` · ${link(trunkQueueUrl(l.appUrl, l.orgSlug, e.target), 'Open in Trunk')}`} · ${whyNote(to)}`,
    ),
  );
  return {
    text: esc(
      `${to.role === 'submitter' ? 'The PR you submitted,' : 'Your PR'} #${e.pr.number}${to.role === 'submitter' ? ',' : ''} ${KIND_WORDS[e.kind]} in ${label}`,
    ),
    blocks,
  };
}

function whyNote(to: NoteReader): string {
  return to.role === 'submitter'
    ? 'sent because you submitted it from Slack; `/mergequeue me notify off` stops these'
    : `sent because you linked GitHub login ${code(to.githubLogin, 60)}; \`/mergequeue me notify off\` stops these`;
}

/**
 * The note of an autopilot re-submission: the class, the evidence, the rule, and a Cancel button (the PR
 * buttons' own, with their rights) for whoever would rather it did not go again.
 */
function renderAutopilotNote(e: AutopilotEvent, to: NoteReader, l: EventLinks): SlackReply {
  const label = queueLabel(e.target);
  const whose = to.role === 'submitter' ? 'the PR you submitted,' : 'your PR';
  const blocks: KnownBlock[] = [
    section(
      `${KIND_EMOJI.autopilot} The app submitted ${whose} ${prText(e.target, e.pr)}, again in *${esc(label)}*: its kick was *${esc(e.kickClass)}* — ${e.evidence}`,
    ),
    prActionButtons({
      ref: e.target,
      pr: { prNumber: e.pr.number, state: 'pending' },
      renderedAt: e.at,
      onNote: true,
      steps: ['cancel'],
      ...l,
    }),
    context(`${ruleContext(e)} · ${slackDate(e.at)} · ${whyNote(to)}`),
  ];
  return { text: esc(`The app submitted #${e.pr.number} again in ${label} (${e.kickClass})`), blocks };
}

/** A live message whose time is up when the queue could not be read: still says so, Refresh kept. */
export function renderLiveEndedUnread(ref: QueueRef, at: number, l: EventLinks = {}): SlackReply {
  const value = encodeButtonValue({ ref, state: 'unknown', concurrency: 0, renderedAt: at });
  return {
    text: esc(`Merge queue ${queueLabel(ref)}: this status message is no longer live`),
    blocks: [
      section(
        `*Merge queue ${esc(queueLabel(ref))}*\nThis status message is no longer live. Press Refresh for the queue as it is now.`,
      ),
      actions([button('Refresh', ACTIONS.refresh, { value })]),
      footer(ref, at, l),
    ],
  };
}
