/**
 * Posting a digest's messages through the Notifier port (the Slack outbox): it paces each channel with
 * every other message the app sends there, waits out Slack's 429s, and says which refusals are final.
 */
import type { Notifier, PostTarget } from '../core/notifier.ts';
import type { DigestMessage } from './types.ts';

/** A message Slack did not take: its code, and whether a retry may still succeed. */
export class SlackPostError extends Error {
  readonly code: string;
  /** Retrying cannot help (channel gone, bot not in channel, token revoked…): the occurrence ends. */
  readonly final: boolean;
  constructor(code: string, final: boolean) {
    super(`Slack refused the message: ${code}`);
    this.name = 'SlackPostError';
    this.code = code;
    this.final = final;
  }
}

/** Posts one message and returns its ts; throws SlackPostError when Slack did not take it. */
export async function postMessage(
  notifier: Notifier,
  target: PostTarget,
  message: DigestMessage,
): Promise<string> {
  const r = await notifier.post(target, message, 'digest');
  if (!r.ok) throw new SlackPostError(r.code, r.final);
  if (!r.ts) throw new SlackPostError('no_ts_in_response', false);
  return r.ts;
}
