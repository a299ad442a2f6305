/**
 * The port through which domains say something in Slack on their own initiative (a digest, a note to its
 * creator, a freeze announcement). Domains see only this: where a message goes, what it says, and what
 * became of it. The Slack side implements it (src/slack/outbox/), with one pacer per channel, one retry
 * policy and one list of final errors; a domain never imports Slack.
 */

/** A message as the Slack side rendered it; the domain stores and hands it over as it is. */
export interface OutgoingMessage {
  text: string;
  blocks?: ReadonlyArray<{ type: string }>;
}

/** Where a message goes: a channel, or a person's user id (their direct message with the app). */
export interface PostTarget {
  workspaceId: string;
  channel: string;
  /** Posts as a reply in this thread. */
  threadTs?: string;
}

/**
 * Why Slack will not take this message now or later (see docs/reliability.md, "Final Slack errors"):
 * `channel` the channel is closed to the app (archived, gone, app removed); `message` the message to edit is
 * gone; `person` the person cannot be written to; `workspace` the app's token no longer works there.
 */
export type Refusal = 'channel' | 'message' | 'person' | 'workspace' | 'execution';

/** What became of one message. Never thrown: a failure is an answer. */
export type NotifyResult =
  /** `channel`: where Slack put it (a post to a user id lands in their DM, whose id chat.update needs). */
  | { ok: true; ts?: string; channel?: string }
  | {
      ok: false;
      /** Slack's error code (`not_in_channel`), or the client's (`http_503`, `slack_webapi_request_error`). */
      code: string;
      /** Retrying cannot help: the caller forgets the message (and tells who the list says). */
      final: boolean;
      /** Set when final: what is closed to the app. */
      refusal?: Refusal;
    };

/** What a message is, for the outbox's metrics and logs. */
export type MessageKind =
  | 'feed'
  | 'alert'
  | 'live'
  | 'note'
  | 'digest'
  | 'freeze'
  | 'notice'
  | 'step'
  | 'dashboard';

export interface Notifier {
  /** Posts a message, in turn with every other message to that channel; resolves once Slack answered for good. */
  post(to: PostTarget, message: OutgoingMessage, kind: MessageKind): Promise<NotifyResult>;
}
