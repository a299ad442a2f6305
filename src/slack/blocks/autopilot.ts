/**
 * The autopilot's words (issue 29): what is set (`config autopilot`), a change's answer to the person, and its
 * announcement in the queue's feed channels. Pure.
 */
import type { KnownBlock } from '@slack/types';
import { formatQueueRef, type QueueRef } from '../../core/target.ts';
import type { EffectiveAutopilot } from '../../kicks/types.ts';
import type { AutopilotChange, AutopilotView } from '../../services/autopilot.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, mention } from './format.ts';
import { context, section } from './kit.ts';

const HINT =
  'Operators change it: `/mergequeue config autopilot on|off [owner/repo[:branch]]` · `config autopilot requeue <class…> [owner/repo[:branch]]` (without a queue: the workspace). It re-submits a kicked PR once per head commit, never while the queue is paused, draining or frozen, never after a person cancelled it or pushed to it.';

function line(e: EffectiveAutopilot): string {
  return `${e.enabled ? ':large_green_circle: *on*' : ':white_circle: *off*'}, re-submits ${e.classes.map((c) => code(c, 20)).join(' ')} kicks`;
}

export function renderAutopilotView(v: AutopilotView): SlackReply {
  const lines = [`*Workspace:* ${line(v.workspace)}`];
  for (const q of v.queues.slice(0, 40)) {
    const own = [
      q.setting.enabled !== undefined ? 'on/off' : undefined,
      q.setting.classes !== undefined ? 'classes' : undefined,
    ].filter(Boolean);
    lines.push(`*${esc(q.queueKey)}:* ${line(q.effective)} _(its own ${own.join(' and ')})_`);
  }
  if (v.queues.length > 40) lines.push(`_…and ${v.queues.length - 40} more queues_`);
  const blocks: KnownBlock[] = [section(`:robot_face: *Autopilot*\n${lines.join('\n')}`), context(HINT)];
  return { response_type: 'ephemeral', text: `Autopilot: ${v.workspace.enabled ? 'on' : 'off'}`, blocks };
}

function what(change: AutopilotChange, queue: QueueRef | undefined, e: EffectiveAutopilot): string {
  const where = queue ? `*${esc(formatQueueRef(queue))}*` : 'this workspace';
  if (change.op === 'requeue')
    return `The autopilot of ${where} now re-submits ${e.classes.map((c) => code(c, 20)).join(' ')} kicks (it is ${e.enabled ? 'on' : 'off'}).`;
  return change.op === 'on'
    ? `The autopilot of ${where} is on: it re-submits ${e.classes.map((c) => code(c, 20)).join(' ')} kicks by itself, once per head commit.`
    : `The autopilot of ${where} is off: kicked PRs wait for a person again.`;
}

export function renderAutopilotSet(
  change: AutopilotChange,
  queue: QueueRef | undefined,
  e: EffectiveAutopilot,
  channels: number,
): SlackReply {
  const text = what(change, queue, e);
  return {
    response_type: 'ephemeral',
    text: text.replace(/[*`]/g, ''),
    blocks: [
      section(`:white_check_mark: ${text}`),
      context(
        channels > 0
          ? `Announced in ${channels === 1 ? 'its feed channel' : `${channels} feed channels`}.`
          : 'No channel follows this queue yet, so nothing was announced.',
      ),
    ],
  };
}

export function renderAutopilotAnnouncement(
  change: AutopilotChange,
  queue: QueueRef | undefined,
  e: EffectiveAutopilot,
  userId: string,
): SlackReply {
  const text = what(change, queue, e);
  return {
    text: `${text.replace(/[*`]/g, '')}`,
    blocks: [section(`:robot_face: ${mention(userId)} changed the autopilot. ${text}`), context(HINT)],
  };
}
