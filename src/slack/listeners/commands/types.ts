/** What a `/mergequeue` subcommand handler receives, after the ack: the request's context, unpacked. */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../../services/actor.ts';
import type { Services } from '../../../services/index.ts';
import type { SlackDeps } from '../../deps.ts';
import type { Reply } from '../../reply.ts';
import type { Outcome } from '../outcome.ts';

export interface CommandRequest {
  deps: SlackDeps;
  /** The services (the request context's). */
  services: Services;
  /** The one reply, bound to this command (the request context's). */
  reply: Reply;
  client: WebClient;
  respond: RespondFn;
  /** Who is asking, built once for this request (slack/context.ts). */
  actor: Actor;
  workspaceId: string;
  channelId: string;
  userId: string;
  triggerId: string;
}

export type { Outcome };
