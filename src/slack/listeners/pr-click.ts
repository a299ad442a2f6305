/** One click (or Cancel's confirmation) on a PR message, read and checked: what pr-buttons.ts and the
 * Cancel modal hand to pr-change-answer.ts. */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { formatQueueRef } from '../../core/target.ts';
import type { PrAction } from '../../queue/pull-requests.ts';
import type { Actor } from '../../services/actor.ts';
import type { Services } from '../../services/index.ts';
import type { WorkspaceTrunk } from '../../services/ports.ts';
import type { QueueAt } from '../../services/queue.ts';
import type { PrButtonValue } from '../blocks/pr-actions.ts';
import type { SlackDeps } from '../deps.ts';

/** One click (or Cancel's confirmation) on a PR message, checked and ready to act on. */
export interface PrClick {
  deps: SlackDeps;
  services: Services;
  client: WebClient;
  /** Undefined when the click's response_url could not be used (a modal whose metadata lost it). */
  respond: RespondFn | undefined;
  /** The click's response_url, carried through Cancel's modal to update an ephemeral message. */
  responseUrl?: string;
  workspaceId: string;
  userId: string;
  userTeamId: string | undefined;
  channelId: string;
  messageTs: string | undefined;
  /** Ephemeral messages have no channel copy: only their response_url can change them. */
  ephemeral: boolean;
  value: PrButtonValue;
  trunk: WorkspaceTrunk;
  /** Who clicked (or confirmed), built once for the request. */
  actor: Actor;
}

/** Double clicks of one rendered button (same message, action and shown state) count once. */
export function prClickKey(c: PrClick, action: PrAction): string {
  const v = c.value;
  return `${c.messageTs ?? 'nots'}:pr_${action}:${formatQueueRef(v.ref)}#${v.prNumber}:${v.state}:${v.renderedAt}`;
}

/** The queue the clicked PR is in. */
export function prQueue(c: PrClick): QueueAt {
  return { ref: c.value.ref, trunk: c.trunk };
}
