/**
 * The in-channel announcement of a change made from Slack: who, what, why, and the queue before → after as
 * Trunk reported it. Also the short ephemeral reply for a change that did nothing.
 */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { QueueAction } from '../../queue/operations.ts';
import type { Queue } from '../../trunk/types.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, mention, queueLabel, slackDate } from './format.ts';
import { context, section } from './kit.ts';

export interface AnnouncementInput {
  action: QueueAction;
  ref: QueueRef;
  userId: string;
  at: number;
  reason?: string;
  before: Queue;
  after: Queue;
}

const VERB: Record<QueueAction, string> = {
  pause: 'paused',
  drain: 'started draining',
  resume: 'resumed',
  concurrency: 'changed the concurrency of',
  settings: 'changed the settings of',
};

/** Fields compared for the before → after lines, in display order. */
const SHOWN: Array<keyof Queue> = [
  'state',
  'concurrency',
  'mode',
  'batch',
  'batchingMinSize',
  'batchingMaxWaitTimeMinutes',
  'canOptimisticallyMerge',
  'pendingFailureDepth',
  'bisectionConcurrency',
  'testingTimeoutMinutes',
  'optimizationMode',
  'directMergeMode',
  'mergeMethod',
  'createPrsForTestingBranches',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
  'requiredStatuses',
];

function show(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '(none)' : v.map((s) => String(s)).join(', ');
  if (v === true) return 'on';
  if (v === false) return 'off';
  if (v === undefined || v === null) return '(unset)';
  return String(v);
}

export function changedFields(
  before: Queue,
  after: Queue,
): Array<{ field: string; before: string; after: string }> {
  const out: Array<{ field: string; before: string; after: string }> = [];
  for (const f of SHOWN) {
    const b = show(before[f]);
    const a = show(after[f]);
    if (b !== a) out.push({ field: f, before: b, after: a });
  }
  return out;
}

export function renderAnnouncement(input: AnnouncementInput): SlackReply {
  const label = queueLabel(input.ref);
  const changes = changedFields(input.before, input.after);
  // Always show the field the action is about, even when Trunk reports it unchanged.
  const key =
    input.action === 'concurrency' ? 'concurrency' : input.action === 'settings' ? undefined : 'state';
  if (key && !changes.some((c) => c.field === key))
    changes.unshift({ field: key, before: show(input.before[key]), after: show(input.after[key]) });
  return renderChangeAnnouncement({
    userId: input.userId,
    verb: VERB[input.action],
    subject: `*${esc(label)}*`,
    plainSubject: label,
    ...(input.reason ? { reason: input.reason } : {}),
    changes,
    at: input.at,
  });
}

export interface ChangeAnnouncement {
  userId: string;
  /** Past tense: "paused", "cancelled". */
  verb: string;
  /** What changed, as escaped mrkdwn. */
  subject: string;
  /** The same in plain words, for the notification text. */
  plainSubject: string;
  reason?: string;
  /** Before → after lines; a line with no `before` shows only its value. */
  changes: Array<{ field: string; before?: string; after: string }>;
  at: number;
  /** Extra context after the date (escaped mrkdwn). */
  note?: string;
}

/** Who changed what, why, and the fields before → after: queue changes and PR changes alike. */
export function renderChangeAnnouncement(input: ChangeAnnouncement): SlackReply {
  const reason = input.reason ? ` — ${escTrim(input.reason, 500)}` : '';
  const head = `${mention(input.userId)} ${input.verb} ${input.subject}${reason}`;
  const lines = input.changes
    .slice(0, 20)
    .map((c) =>
      c.before === undefined
        ? `• ${esc(c.field)}: ${code(c.after, 300)}`
        : `• ${esc(c.field)}: ${code(c.before, 300)} → ${code(c.after, 300)}`,
    );
  if (input.changes.length > 20) lines.push(`• …and ${input.changes.length - 20} more`);
  const blocks: KnownBlock[] = [section(head)];
  if (lines.length > 0) blocks.push(section(lines.join('\n')));
  blocks.push(
    context(`${slackDate(input.at)} · as reported by Trunk${input.note ? ` · ${input.note}` : ''}`),
  );
  const plainReason = input.reason ? ` — ${escTrim(input.reason, 200)}` : '';
  return {
    text: `<@${input.userId}> ${input.verb} ${input.plainSubject}${plainReason}`,
    blocks,
    response_type: 'in_channel',
  };
}

/** Ephemeral: the click or command changed nothing, and why. */
export function renderNoop(reason: string): SlackReply {
  return {
    text: escTrim(reason, 2900),
    blocks: [section(`:information_source: ${escTrim(reason, 2900)}`)],
    response_type: 'ephemeral',
  };
}
