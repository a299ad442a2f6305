/**
 * Freeze windows in Slack: the replies to `/mergequeue freeze …`, the list, the line on the status message
 * and the announcements of what the freezer did. Pure: plain data in, a reply out. Times are Slack date
 * tokens, so every reader sees them in their own time zone; the window's own zone is named beside them.
 */
import type { KnownBlock } from '@slack/types';
import { formatLocalTime } from '../../core/local-time.ts';
import { formatQueueRef } from '../../core/target.ts';
import type { FreezeEvent, FreezeWindow, Occurrence, SkipResult, WindowView } from '../../freeze/index.ts';
import { FREEZE_USAGE } from '../grammars/freeze.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, mention, slackDate } from './format.ts';
import { context, header, section } from './kit.ts';

/** Windows listed before "and N more": with the header and footer a list stays under 50 blocks. */
const MAX_LISTED = 40;

/** `18:00–08:00 Europe/Paris, weekdays` or `12:00–13:00 UTC, once on 2026-12-24`. */
export function describeWindowSchedule(w: FreezeWindow): string {
  const when = w.rule.kind === 'once' ? `once on ${w.rule.date}` : w.rule.days;
  return `${formatLocalTime(w.startMinute)}–${formatLocalTime(w.endMinute)} ${w.tz}, ${when}`;
}

function span(o: Occurrence): string {
  return `${slackDate(o.start)} – ${slackDate(o.end)}`;
}

/** "on now, until …", "next: … – …", or "over" for a `once` window that has passed. */
export function describeCurrent(v: WindowView): string {
  if (!v.current) return 'over: it will not open again';
  if (v.current.active) return `*on now*, until ${slackDate(v.current.occurrence.end)}`;
  return `next: ${span(v.current.occurrence)}`;
}

function reasonText(w: FreezeWindow, max = 300): string {
  return w.reason ? ` — ${escTrim(w.reason, max)}` : '';
}

/** One window on one line: id, queue, schedule, action, reason. */
export function windowLine(w: FreezeWindow): string {
  return `${code(w.id)} *${esc(formatQueueRef(w.target))}* · ${esc(describeWindowSchedule(w))} · ${w.action}${reasonText(w)}`;
}

export function renderFreezeHelp(): SlackReply {
  return {
    text: `Freeze windows: ${FREEZE_USAGE.replaceAll('\n', ' · ')}`,
    blocks: [
      header('/mergequeue freeze'),
      section(
        'A freeze window drains (or pauses) a queue at a time of day and resumes it at the end — but only if nobody changed it in between. Starts and ends are announced in the channel that added the window. Operators only; anyone may list.',
      ),
      section(
        `*Usage*\n${FREEZE_USAGE.split('\n')
          .map((l) => code(l, 300))
          .join('\n')}`,
      ),
      section(
        '*Examples*\n`/mergequeue freeze add acme/web:main 18:00-08:00 Europe/Paris weekdays drain Nightly release`\n`/mergequeue freeze add 16:00-23:59 once 2026-12-24 pause Holiday freeze`',
      ),
      context(
        'Defaults: your Slack time zone, `once` (today, or tomorrow when the start has passed), `drain`. A window may cross midnight.',
      ),
    ],
    response_type: 'ephemeral',
  };
}

/** In the channel: who added which window, and when it opens. */
export function renderWindowAdded(v: WindowView, userId: string): SlackReply {
  const w = v.window;
  const head = `:snowflake: ${mention(userId)} added freeze window ${code(w.id)}: *${esc(formatQueueRef(w.target))}* will be ${w.action === 'drain' ? 'drained' : 'paused'} ${esc(describeWindowSchedule(w))}${reasonText(w)}.`;
  return {
    text: `${esc(`Freeze window ${w.id} added for ${formatQueueRef(w.target)}: ${describeWindowSchedule(w)}, ${w.action}`)}`,
    blocks: [
      section(head),
      context(
        `${describeCurrent(v)} · starts and ends are announced here · \`/mergequeue freeze skip ${w.id}\` skips the next one, \`/mergequeue freeze remove ${w.id}\` removes it`,
      ),
    ],
    response_type: 'in_channel',
  };
}

export function renderWindowList(views: WindowView[], now: number): SlackReply {
  if (views.length === 0)
    return {
      text: 'No freeze windows in this workspace.',
      blocks: [
        section(
          'No freeze windows in this workspace. Add one with `/mergequeue freeze add 18:00-08:00 weekdays drain Nightly release`.',
        ),
      ],
      response_type: 'ephemeral',
    };
  const shown = views.slice(0, MAX_LISTED);
  const blocks: KnownBlock[] = [header(`Freeze windows (${views.length})`)];
  for (const v of shown) {
    const w = v.window;
    // The occurrence `freeze skip` cancelled, while it is still to come.
    const skipped =
      w.skipStartAt !== undefined && w.skipStartAt > now
        ? ` · skipping the one at ${slackDate(w.skipStartAt)}`
        : '';
    blocks.push(
      section(
        `${windowLine(w)}\n${describeCurrent(v)}${skipped} · announced in <#${w.channelId}> · added by ${mention(w.createdBy)}`,
      ),
    );
  }
  if (views.length > shown.length) blocks.push(context(`…and ${views.length - shown.length} more`));
  blocks.push(context('Times are shown in your own time zone; each window runs in the zone named.'));
  return {
    text: `${views.length} freeze window${views.length === 1 ? '' : 's'}: ${esc(shown.map((v) => v.window.id).join(', '))}`,
    blocks,
    response_type: 'ephemeral',
  };
}

export function renderWindowRemoved(v: WindowView, userId: string): SlackReply {
  const w = v.window;
  const open = v.current?.active
    ? ' It is open now: the queue is resumed within a few seconds, unless someone else changed it meanwhile.'
    : '';
  return {
    text: esc(`Freeze window ${w.id} on ${formatQueueRef(w.target)} removed`),
    blocks: [
      section(
        `:wastebasket: ${mention(userId)} removed freeze window ${code(w.id)} (*${esc(formatQueueRef(w.target))}*, ${esc(describeWindowSchedule(w))}).${open}`,
      ),
    ],
    response_type: 'in_channel',
  };
}

export function renderWindowNotFound(id: string): SlackReply {
  const text = `There is no freeze window ${code(id)} in this workspace. \`/mergequeue freeze list\` shows the ids.`;
  return { text: esc(`There is no freeze window ${id} in this workspace.`), blocks: [section(text)] };
}

export function renderSkip(r: SkipResult, userId: string, id: string): SlackReply {
  if (r.outcome === 'not_found') return renderWindowNotFound(id);
  const w = r.window;
  if (r.outcome === 'no_next')
    return {
      text: esc(`Freeze window ${w.id} has no occurrence left to skip.`),
      blocks: [
        section(
          `Freeze window ${code(w.id)} will not open again, so there is nothing to skip. To end an open window early, \`/mergequeue freeze remove ${w.id}\`.`,
        ),
      ],
    };
  if (r.outcome === 'already_skipped')
    return {
      text: esc(`Freeze window ${w.id}: the next occurrence is already skipped.`),
      blocks: [
        section(
          `The next occurrence of freeze window ${code(w.id)} (${span(r.skipped)}) is already skipped; one skip at a time.`,
        ),
      ],
    };
  const after = r.next ? `The one after: ${span(r.next)}.` : 'It will not open again after that.';
  return {
    text: esc(`Freeze window ${w.id}: next occurrence skipped`),
    blocks: [
      section(
        `:fast_forward: ${mention(userId)} skipped the next occurrence of freeze window ${code(w.id)} on *${esc(formatQueueRef(w.target))}* (${span(r.skipped)}). ${after}`,
      ),
    ],
    response_type: 'in_channel',
  };
}

/** The status message's line about the queue's open or next window. */
export function freezeStatusLine(v: WindowView & { current: NonNullable<WindowView['current']> }): string {
  const w = v.window;
  const o = v.current.occurrence;
  if (v.current.active)
    return `:snowflake: Freeze window ${code(w.id)} is on (${w.action}) until ${slackDate(o.end)}${reasonText(w, 200)}`;
  return `:snowflake: Next freeze window ${code(w.id)} (${w.action}): ${span(o)}${reasonText(w, 200)}`;
}

const DONE: Record<'paused' | 'draining', string> = { paused: 'paused', draining: 'draining' };

/** One announcement for each thing the freezer reports, for the window's channel. */
export function renderFreezeEvent(e: FreezeEvent): SlackReply {
  const w = e.window;
  const q = `*${esc(formatQueueRef(w.target))}*`;
  const id = code(w.id);
  const resumeHint = `\`/mergequeue resume ${formatQueueRef(w.target)}\``;
  let line: string;
  let note: string | undefined;
  switch (e.kind) {
    case 'started':
      line = `:snowflake: Freeze window ${id} started: ${q} is ${DONE[e.state]}${reasonText(w)}. It ends ${slackDate(e.occurrence.end)}.`;
      if (e.joined)
        note = `Window ${code(e.joined)} had already frozen it; the queue stays frozen until both end.`;
      if (e.late) note = `Applied late: the app was not running at ${slackDate(e.occurrence.start)}.`;
      break;
    case 'already_frozen':
      line = `:information_source: Freeze window ${id} opened, but ${q} was already ${esc(e.found)} for another reason: it is left as it is, and this window will not resume it.`;
      break;
    case 'start_retrying':
      line = `:warning: Freeze window ${id} could not ${w.action} ${q}: ${escTrim(e.error, 1000)} Retrying until the window closes (next try ${slackDate(e.nextAttemptAt)}).`;
      break;
    case 'start_failed':
      line = `:x: Freeze window ${id} never managed to ${w.action} ${q} (${e.attempts} attempt${e.attempts === 1 ? '' : 's'}): ${escTrim(e.error, 1000)} The queue was not frozen for this window.`;
      break;
    case 'ended':
      if (e.resumed) {
        line = `:arrow_forward: Freeze window ${id} ended: ${q} is running again.`;
        if (e.late) note = `Resumed late: the app was not running at ${slackDate(e.occurrence.end)}.`;
      } else {
        line = `:snowflake: Freeze window ${id} ended, but ${q} stays frozen for ${e.keptFrozenBy.map((k) => code(k)).join(', ')}, still open.`;
      }
      break;
    case 'not_resumed': {
      const who = e.changedBy ? ` by ${mention(e.changedBy)}` : ' by someone else';
      const when = e.changedAt !== undefined ? ` ${slackDate(e.changedAt)}` : ' during the window';
      const why =
        e.changedBy || e.changedAt !== undefined
          ? `it was ${esc(e.found.replaceAll('_', ' '))}${who}${when}`
          : escTrim(e.reason, 500);
      line = `:warning: Freeze window ${id} ended, but ${q} was not resumed: ${why}. Resume it with ${resumeHint} when ready.`;
      break;
    }
    case 'creator_not_operator':
      line = `:no_entry: Freeze window ${id} did not ${w.action} ${q}: it acts as ${mention(w.createdBy)}, who created it, and they are no longer an operator (${escTrim(e.because, 300)}). An operator can add it again with \`/mergequeue freeze add\`, or remove it with \`/mergequeue freeze remove ${w.id}\`.`;
      break;
    case 'end_retrying':
      line = `:warning: Freeze window ${id} ended, but resuming ${q} failed: ${escTrim(e.error, 1000)} Retrying (next try ${slackDate(e.nextAttemptAt)}).`;
      break;
    case 'end_failed':
      line = `:x: Freeze window ${id} could not resume ${q} after ${e.attempts} attempts: ${escTrim(e.error, 1000)} Resume it by hand with ${resumeHint}.`;
      break;
  }
  const blocks: KnownBlock[] = [section(line)];
  blocks.push(context(note ? `${note} · ${esc(describeWindowSchedule(w))}` : esc(describeWindowSchedule(w))));
  return { text: plainText(line), blocks, response_type: 'in_channel' };
}

/** Notification text: the line without emoji codes and Slack date tokens' markup. */
function plainText(line: string): string {
  return line
    .replace(/^:[a-z_]+: /, '')
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .slice(0, 2900);
}
