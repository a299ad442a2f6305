/**
 * `/mergequeue stats [target] [1d|7d|30d]`: how the queue did, with charts. The first ask of a queue may
 * read Trunk's record back first: past two seconds the person reads "reading Trunk's record…", and that
 * answer is then replaced in place by the figures. If Slack refuses the charts (`invalid_blocks`), the same
 * answer goes again without them.
 */
import type { RespondFn } from '@slack/bolt';
import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderReading, renderStats, withoutCharts } from '../../blocks/stats.ts';
import type { SlackReply } from '../../reply.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function stats(
  req: CommandRequest,
  target: TargetSpec | undefined,
  days: number,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  let reading = false;
  const found = await req.services.stats.stats(req.actor, at, days, {
    reading: async () => {
      reading = await req.reply.respond(renderReading(at.ref));
    },
  });
  const replace = reading ? { replace_original: true } : {};
  if (found.answer === 'read_failed') {
    await req.reply.respond(renderError(found.error), replace);
    return 'failed';
  }
  const reply = renderStats(found);
  const sent = await sendWithCharts(req.respond, reply, replace);
  if (sent === 'refused') {
    req.deps.logger.info({ queue: at.ref }, 'Slack refused the stats charts; answered without them');
    return (await req.reply.respond(withoutCharts(reply), replace)) ? 'ok' : 'failed';
  }
  if (sent === 'failed')
    req.deps.logger.warn({ queue: at.ref }, 'could not answer stats through response_url');
  return sent === 'sent' ? 'ok' : 'failed';
}

/** Sends a reply holding charts: `refused` when Slack answered `invalid_blocks` (HTTP 400, or `ok: false`). */
async function sendWithCharts(
  respond: RespondFn,
  reply: SlackReply,
  extra: { replace_original?: boolean },
): Promise<'sent' | 'refused' | 'failed'> {
  try {
    const res: unknown = await respond({
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      response_type: reply.response_type ?? 'ephemeral',
      ...extra,
    });
    const body = await (res as { clone?: () => { json(): Promise<unknown> } })
      ?.clone?.()
      .json()
      .catch(() => undefined);
    return (body as { error?: unknown } | undefined)?.error === 'invalid_blocks' ? 'refused' : 'sent';
  } catch (err) {
    // A response URL answers a refused block with HTTP 400 (its text is not handed back by Bolt).
    return (err as { statusCode?: unknown; code?: unknown })?.statusCode === 400 ? 'refused' : 'failed';
  }
}
