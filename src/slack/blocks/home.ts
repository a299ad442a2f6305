/**
 * The app's Home tab: a person's PRs in the workspace's queues, the queues (with the status message's
 * buttons for operators), digests, watches, freeze windows, operators and the Trunk connection. Pure: the
 * data comes gathered (services/home.ts, put in words by slack/home.ts), the view goes out. A Home view holds at most 100 blocks: the lists
 * get a few sections each and the queues share what is left, each list saying how many more it holds.
 */
import type { HomeView, KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import { describeSchedule, repoLabel, type Subscription } from '../../digest/index.ts';
import type { TestWatch } from '../../flaky/types.ts';
import type { WindowView } from '../../freeze/index.ts';
import type { EtaAnswer } from '../../queue/story-reader.ts';
import type { HomeData } from '../../services/home.ts';
import type { EnqueuedPullRequest, Queue } from '../../trunk/types.ts';
import type { Watch } from '../../watch/index.ts';
import type { SlackReply } from '../reply.ts';
import { who } from './config.ts';
import { etaSentence } from './eta.ts';
import { code, esc, escTrim, link, mention, plural, prUrl, queueLabel, slackDate } from './format.ts';
import { describeCurrent, windowLine } from './freeze.ts';
import { ACTIONS } from './ids.ts';
import { actions, button, context, divider, header, section, sectionsOfLines } from './kit.ts';
import { durationText } from './stats.ts';
import { stateLabel, statusButtons } from './status.ts';
import { testWatchLine } from './test-feeds.ts';
import { watchLine } from './watch.ts';

/** Slack's limit for a Home view. */
export const HOME_MAX_BLOCKS = 100;
/** Sections a list (PRs, digests, watches, freeze windows) may use before "and N more". */
const LIST_SECTIONS = 2;
/** Blocks of a click's answer shown at the top, at most. */
const NOTICE_BLOCKS = 3;

/** A queue as the Home read it: its state, or why it could not be read. */
export type HomeQueueReading = { ok: true; queue: Queue } | { ok: false; problem: string };

export interface HomeQueue {
  ref: QueueRef;
  /** Why it is listed: `workspace default`, `watch`, `digest`… */
  sources: string[];
  channels: string[];
  /** Absent when the Home did not read it (past its budget of Trunk reads, or Trunk is not connected). */
  reading?: HomeQueueReading;
  /** Set while the queue is slow: since when, and its median time in queue against the usual. */
  slow?: { since: number; recentMedianMs?: number; baselineMedianMs?: number };
}

export interface HomePr {
  ref: QueueRef;
  pr: EnqueuedPullRequest;
  /** 1-based place in the queue, with the number of PRs in it; absent once the PR left the queue. */
  position?: { at: number; of: number };
  /** When it should merge and what it waits behind (Trunk v2). */
  eta?: Extract<EtaAnswer, { kind: 'eta' }>;
}

export interface HomeInput {
  userId: string;
  renderedAt: number;
  /** The person may change queues and connect Trunk (the buttons are shown). */
  operator: boolean;
  trunk: { connected: boolean; orgSlug?: string };
  /** Whether the workspace reads Trunk v2, and where its key comes from. */
  v2?: { has: false } | { has: true; source: 'connect' | 'environment' };
  /** Why an operator cannot connect from here (no ENCRYPTION_KEY); absent when they can. */
  connectBlocked?: string;
  /** Trunk's webhooks: when the workspace's latest delivery arrived. */
  webhooks?: { lastDeliveryAt?: number };
  /** The autopilot (issue 29), when on anywhere or it acted in the last day. */
  autopilot?: {
    enabled: boolean;
    classes: string[];
    queuesOn: number;
    recent: Array<{ queueKey: string; prNumber: number; kickClass: string; status: string; at: number }>;
  };
  appUrl?: string;
  /** The person's GitHub login, when linked. */
  login?: string;
  prs: HomePr[];
  /** Queues whose PR list could not be read, and why. */
  prProblems: Array<{ ref: QueueRef; problem: string }>;
  queues: HomeQueue[];
  digests: Subscription[];
  watches: Watch[];
  /** Flaky-test feeds (`tests watch`), listed with the queue feeds. */
  testWatches?: TestWatch[];
  freezes: WindowView[];
  operators: HomeData['operators'];
  installerUserId?: string;
  /** What a click on this Home answered (refusals, "already paused", announcements), newest last. */
  notices?: SlackReply[];
}

export function renderHome(input: HomeInput): HomeView {
  const top = [
    header('mergequeue'),
    ...noticeBlocks(input.notices ?? []),
    context(
      `${input.operator ? 'You are an operator: you may change queues.' : 'Anyone may read; operators change queues.'} Built ${slackDate(input.renderedAt)} · \`/mergequeue help\` lists every command`,
    ),
  ];
  const prs = prBlocks(input);
  const rest = [
    ...listBlocks('Digests', input.digests.map(digestLine), NO_DIGESTS),
    ...listBlocks(
      'Watches',
      [
        ...input.watches.map((w) => `• <#${w.channelId}> ${watchLine(w)}`),
        ...(input.testWatches ?? []).map((w) => `• <#${w.channelId}> ${testWatchLine(w)}`),
      ],
      NO_WATCHES,
    ),
    ...listBlocks(
      'Freeze windows',
      input.freezes.map((v) => `• ${windowLine(v.window)}\n   ${describeCurrent(v)}`),
      NO_FREEZES,
    ),
    ...operatorBlocks(input),
    ...trunkBlocks(input),
  ];
  // The queues take what the rest leaves of the 100 blocks.
  const room = HOME_MAX_BLOCKS - top.length - prs.length - rest.length;
  return { type: 'home', blocks: [...top, ...prs, ...queueBlocks(input, room), ...rest] };
}

export const NO_QUEUES = 'No queues yet: `/mergequeue config workspace owner/repo:branch`';
const NO_DIGESTS =
  'No digests yet: `/mergequeue digest add failing owner/repo 09:00` in the channel that should get it';
const NO_WATCHES = 'Nothing watched yet: `/mergequeue watch owner/repo:branch` in the channel for the feed';
const NO_FREEZES =
  'No freeze windows yet: `/mergequeue freeze add owner/repo:branch 18:00-08:00 weekdays drain`';

function noticeBlocks(notices: SlackReply[]): KnownBlock[] {
  const last = notices.at(-1);
  if (!last) return [];
  const blocks = (last.blocks ?? [section(esc(last.text))]).slice(0, NOTICE_BLOCKS);
  return [...blocks, divider()];
}

/** A header, the lines in at most LIST_SECTIONS sections (the last says how many more), or the empty state. */
function listBlocks(title: string, lines: string[], empty: string): KnownBlock[] {
  const head = [divider(), header(lines.length ? `${title} (${lines.length})` : title)];
  if (lines.length === 0) return [...head, section(empty)];
  return [...head, ...sectionsOfLines(lines, LIST_SECTIONS, (n) => `_…and ${n} more_`)];
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

function prLine(p: HomePr): string {
  const n = p.pr.prNumber;
  const state = esc(String(p.pr.state ?? 'in the queue').replaceAll('_', ' '));
  const where = p.position ? ` · ${ordinal(p.position.at)} of ${p.position.of}` : '';
  const eta = p.eta ? `\n   ${etaSentence(p.ref, p.eta)}` : '';
  return `• ${link(prUrl(p.ref.repo, n), `#${n}`)} ${escTrim(p.pr.prTitle || '(no title)', 100)} · *${esc(queueLabel(p.ref))}* · ${state}${where}${eta}`;
}

function prBlocks(input: HomeInput): KnownBlock[] {
  const head = [divider(), header(input.prs.length ? `Your PRs (${input.prs.length})` : 'Your PRs')];
  if (!input.login)
    return [
      ...head,
      section(
        'Link your GitHub login to see your PRs here (and get a note when one fails): `/mergequeue me github <login>`',
      ),
    ];
  const problems = input.prProblems.length
    ? [
        context(
          escTrim(
            input.prProblems
              .map((p) => `Could not read the PRs of ${queueLabel(p.ref)}: ${p.problem}`)
              .join(' · '),
            2900,
          ),
        ),
      ]
    : [];
  if (input.prs.length === 0)
    return [
      ...head,
      section(
        `No open PRs of ${code(input.login)} in these queues. Put one in with \`/mergequeue submit <pr> owner/repo:branch\`.`,
      ),
      ...problems,
    ];
  return [
    ...head,
    ...sectionsOfLines(input.prs.map(prLine), LIST_SECTIONS, (n) => `_…and ${n} more_`),
    ...problems,
  ];
}

function queueWhy(q: HomeQueue): string {
  const channels = q.channels.length
    ? ` in ${q.channels
        .slice(0, 5)
        .map((c) => `<#${c}>`)
        .join(', ')}`
    : '';
  const more = q.channels.length > 5 ? ` and ${q.channels.length - 5} more` : '';
  return `_${esc(q.sources.join(', '))}${channels}${more}_${slowLine(q)}`;
}

/** A slow queue says so on the Home, with the figures (watch/slow.ts). */
function slowLine(q: HomeQueue): string {
  if (!q.slow) return '';
  const { since, recentMedianMs, baselineMedianMs } = q.slow;
  return `\n:snail: *Slow* since ${slackDate(since)}: median time in queue ${durationText(recentMedianMs)} over the last 6 h, usually ${durationText(baselineMedianMs)}`;
}

function queueText(q: HomeQueue, reading: HomeQueueReading): string {
  const label = `*${esc(queueLabel(q.ref))}*`;
  if (!reading.ok)
    return `${label} · :warning: could not read: ${escTrim(reading.problem, 600)}\n${queueWhy(q)}`;
  const queue = reading.queue;
  const prs = queue.enqueuedPullRequests;
  const count = prs === undefined ? '' : ` · ${plural(prs.length, 'PR')} enqueued`;
  return `${label} · ${stateLabel(String(queue.state ?? 'unknown'))} · concurrency ${esc(String(queue.concurrency))}${count}\n${queueWhy(q)}`;
}

/**
 * Each queue read from Trunk is a section, with the status message's buttons for operators, within `room`
 * blocks; the queues not read (past the Home's reading budget, or no Trunk) are lines in a few sections.
 */
function queueBlocks(input: HomeInput, room: number): KnownBlock[] {
  const { queues } = input;
  const head = [divider(), header(queues.length ? `Queues (${queues.length})` : 'Queues')];
  if (queues.length === 0) return [...head, section(NO_QUEUES)];
  const out: KnownBlock[] = [...head];
  const read = queues.filter((q) => q.reading);
  const unread = queues.filter((q) => !q.reading);
  // Kept for the queues not read and for "and N more".
  let left = room - head.length - (unread.length ? LIST_SECTIONS + 1 : 0) - 1;
  let shown = 0;
  for (const q of read) {
    const reading = q.reading as HomeQueueReading;
    const withButtons = input.operator && reading.ok;
    const needs = withButtons ? 2 : 1;
    if (needs > left) break;
    out.push(section(queueText(q, reading)));
    if (withButtons && reading.ok) {
      const status = {
        ref: q.ref,
        queue: reading.queue,
        renderedAt: input.renderedAt,
        ...(input.appUrl ? { appUrl: input.appUrl } : {}),
        ...(input.trunk.orgSlug ? { orgSlug: input.trunk.orgSlug } : {}),
      };
      out.push(actions(statusButtons(status, String(reading.queue.state ?? 'unknown').toLowerCase())));
    }
    left -= needs;
    shown++;
  }
  const more = (n: number) =>
    `_…and ${plural(n, 'more queue')}: \`/mergequeue status owner/repo:branch\` shows any of them_`;
  if (unread.length) {
    out.push(
      context(
        input.trunk.connected
          ? `Not read here (the Home reads the first ${read.length} from Trunk):`
          : 'Trunk is not connected, so their states are unknown:',
      ),
    );
    const lines = [...read.slice(shown), ...unread].map(
      (q) => `• *${esc(queueLabel(q.ref))}* · ${queueWhy(q)}`,
    );
    out.push(...sectionsOfLines(lines, LIST_SECTIONS, more));
  } else if (shown < read.length) {
    out.push(section(more(read.length - shown)));
  }
  return out;
}

function digestLine(d: Subscription): string {
  return `• ${code(d.id)} ${d.kind} tests of *${esc(repoLabel(d))}* · ${esc(describeSchedule(d))} · <#${d.channelId}>`;
}

function operatorBlocks(input: HomeInput): KnownBlock[] {
  const named = input.operators.slice(0, 60).map(who);
  const more =
    input.operators.length > named.length ? ` and ${input.operators.length - named.length} more` : '';
  const byRight = `Workspace admins and owners${input.installerUserId ? `, and ${mention(input.installerUserId)} (installed the app)` : ''}, by right.`;
  return [
    divider(),
    header('Operators'),
    section(`${byRight}\n${named.length ? `Named: ${named.join(', ')}${more}` : 'No one else is named.'}`),
    context('Operators are changed with `/mergequeue config operators add|remove @name`.'),
  ];
}

/** The autopilot: on or off, for which kicks, and what it re-submitted in the last day. */
function autopilotLine(a: NonNullable<HomeInput['autopilot']>): string {
  const where = a.enabled
    ? `on for the workspace (${a.classes.map((c) => code(c, 20)).join(' ')})`
    : `on for ${a.queuesOn} ${a.queuesOn === 1 ? 'queue' : 'queues'}`;
  const done = a.recent.map(
    (r) =>
      `#${r.prNumber} in ${esc(r.queueKey)} (${esc(r.kickClass)}${r.status === 'refused' ? ', refused by Trunk' : ''}) ${slackDate(r.at)}`,
  );
  return `*Autopilot:* ${a.enabled || a.queuesOn > 0 ? where : 'off'}. ${done.length > 0 ? `Re-submitted in the last day: ${done.join('; ')}.` : 'Nothing re-submitted in the last day.'} \`/mergequeue config autopilot\` says more.`;
}

/** When Trunk's webhooks last reached the app, or that none has (queue events then come by polling). */
function webhooksLine(lastDeliveryAt: number | undefined): string {
  return lastDeliveryAt === undefined
    ? '*Trunk webhooks:* no delivery received yet: queue events come by polling (add the endpoint shown by `/mergequeue connect` in Trunk for events within seconds).'
    : `*Trunk webhooks:* last delivery ${slackDate(lastDeliveryAt)}.`;
}

/** Which Trunk v2 features the workspace has, and how to get them when it has none. */
function v2Line(v2: NonNullable<HomeInput['v2']>, operator: boolean): string {
  if (v2.has)
    return `*Trunk v2:* on (key from ${v2.source === 'connect' ? '`/mergequeue connect`' : 'TRUNK_API_KEY'}): \`why\` tells why a PR left the queue, \`eta\` when it should merge, and your PRs below show their ETA.`;
  return `*Trunk v2:* off. With a v2 API key (Trunk → Settings → Developer → API Keys), \`/mergequeue why\` says why a PR was kicked and \`eta\` when it will merge; ${operator ? 'add it with Connect' : 'an operator adds it with `/mergequeue connect`'}.`;
}

function trunkBlocks(input: HomeInput): KnownBlock[] {
  const { connected, orgSlug } = input.trunk;
  const status = connected
    ? `*Trunk:* connected${orgSlug ? ` (organization ${code(orgSlug)})` : ''}`
    : '*Trunk:* not connected';
  const out: KnownBlock[] = [divider()];
  if (connected && input.v2) out.push(context(v2Line(input.v2, input.operator)));
  if (connected && input.webhooks) out.push(context(webhooksLine(input.webhooks.lastDeliveryAt)));
  if (connected && input.autopilot) out.push(context(autopilotLine(input.autopilot)));
  if (!input.operator) {
    out.push(section(connected ? status : `${status}. Ask an operator to run \`/mergequeue connect\`.`));
    return out;
  }
  if (input.connectBlocked) {
    out.push(section(`${status}. ${escTrim(input.connectBlocked, 1500)}`));
    return out;
  }
  out.push(
    section(
      connected ? `${status}. Replace the token with Connect.` : `${status}. Connect it to use the queues.`,
    ),
  );
  const connect = connected
    ? button('Connect again…', ACTIONS.homeConnect, { value: 'connect' })
    : button('Connect Trunk…', ACTIONS.homeConnect, { style: 'primary', value: 'connect' });
  out.push(actions([connect]));
  return out;
}
