/**
 * `/mergequeue freeze add|list|remove|skip`: parsed by the freeze domain in the person's Slack time zone
 * (users.info), the queue resolved like every other command (typed, channel default, workspace default).
 * Anyone may list; adding, removing and skipping are for operators, refusals ephemeral and audited, changes
 * audited and told to the channel, where the window's starts and ends will be announced.
 */

import { formatQueueRef } from '../../../core/target.ts';
import { addWindow, type FreezeAdd, listWindows, removeWindow, skipNext } from '../../../freeze/index.ts';
import { recordRefusal } from '../../../queue/service.ts';
import { renderNoTarget, renderRefusal, renderUsageError } from '../../blocks/errors.ts';
import {
  renderFreezeHelp,
  renderSkip,
  renderWindowAdded,
  renderWindowList,
  renderWindowNotFound,
  renderWindowRemoved,
} from '../../blocks/freeze.ts';
import { FREEZE_USAGE, parseFreezeCommand } from '../../commands/freeze.ts';
import { slackTextToPlain } from '../../commands/grammar.ts';
import { mayOperate, postToChannel, resolveRef, sendReply } from '../../interaction.ts';
import type { SlackReply } from '../../reply.ts';
import { auditCommand } from './audit.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function freeze(req: CommandRequest, text: string): Promise<Outcome> {
  const { deps } = req;
  const now = deps.now();
  // Only `add` needs the person's zone; users.info is cached by the directory and also serves the check below.
  const wantsZone = /^\s*add\b/i.test(text);
  const user = wantsZone
    ? await deps.directory
        .forWorkspace(req.workspaceId, req.client)
        .getUser(req.userId)
        .catch(() => undefined)
    : undefined;
  // Mentions and links in a reason are kept as the words typed, so nothing in it pings when shown again.
  const parsed = parseFreezeCommand(slackTextToPlain(text), { ...(user?.tz ? { tz: user.tz } : {}), now });
  if (!parsed.ok) {
    await sendReply(deps, req.respond, renderUsageError(parsed.error, FREEZE_USAGE));
    return 'invalid';
  }
  const c = parsed.value;
  switch (c.kind) {
    case 'help':
      await sendReply(deps, req.respond, renderFreezeHelp());
      return 'ok';
    case 'list':
      await sendReply(
        deps,
        req.respond,
        renderWindowList(await listWindows(deps.store.db, req.workspaceId, now), now),
      );
      return 'ok';
    case 'add':
      return add(req, c.add);
    case 'remove':
    case 'skip':
      return removeOrSkip(req, c.kind, c.id);
  }
}

/** Audits a refusal and tells the person why, privately. */
async function refuse(req: CommandRequest, action: string, target: string, what: string, because: string) {
  await recordRefusal(
    { store: req.deps.store, workspaceId: req.workspaceId, userId: req.userId, now: req.deps.now },
    action,
    target,
    because,
  );
  await sendReply(req.deps, req.respond, renderRefusal(what, because));
  return 'refused' as const;
}

function audit(req: CommandRequest, action: string, target: string, detail: Record<string, unknown>) {
  return auditCommand(req, action, target, 'ok', detail);
}

/** A change the channel should know about: posted there, or in_channel through respond when the bot cannot. */
async function tellChannel(req: CommandRequest, reply: SlackReply): Promise<void> {
  await postToChannel(req.deps, req.client, req.channelId, reply, req.respond);
}

async function add(req: CommandRequest, command: FreezeAdd): Promise<Outcome> {
  const { deps } = req;
  const ref = await resolveRef(deps, req.workspaceId, req.channelId, command.target);
  if (!ref) {
    await sendReply(deps, req.respond, renderNoTarget());
    return 'invalid';
  }
  const target = formatQueueRef(ref);
  const decision = await mayOperate(deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed)
    return refuse(req, 'freeze_add', target, `add a freeze window on ${target}`, decision.because);
  const view = await addWindow(
    deps.store.db,
    { workspaceId: req.workspaceId, channelId: req.channelId, createdBy: req.userId, target: ref, command },
    deps.now(),
  );
  const w = view.window;
  await audit(req, 'freeze_add', target, {
    window: w.id,
    start: w.startMinute,
    end: w.endMinute,
    tz: w.tz,
    rule: w.rule,
    action: w.action,
    ...(w.reason ? { reason: w.reason } : {}),
    channel: w.channelId,
  });
  await tellChannel(req, renderWindowAdded(view, req.userId));
  return 'ok';
}

async function removeOrSkip(req: CommandRequest, kind: 'remove' | 'skip', id: string): Promise<Outcome> {
  const { deps } = req;
  const action = `freeze_${kind}`;
  const decision = await mayOperate(deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed)
    return refuse(req, action, `freeze window ${id}`, `${kind} freeze window ${id}`, decision.because);
  const now = deps.now();
  if (kind === 'remove') {
    const removed = await removeWindow(deps.store.db, req.workspaceId, id, now);
    if (!removed) {
      await sendReply(deps, req.respond, renderWindowNotFound(id));
      return 'invalid';
    }
    await audit(req, action, formatQueueRef(removed.window.target), { window: id });
    await tellChannel(req, renderWindowRemoved(removed, req.userId));
    return 'ok';
  }
  const result = await skipNext(deps.store.db, req.workspaceId, id, now);
  const reply = renderSkip(result, req.userId, id);
  if (result.outcome !== 'skipped') {
    await sendReply(deps, req.respond, reply);
    return result.outcome === 'not_found' ? 'invalid' : 'noop';
  }
  await audit(req, action, formatQueueRef(result.window.target), {
    window: id,
    skipped: result.skipped.start,
  });
  await tellChannel(req, reply);
  return 'ok';
}
