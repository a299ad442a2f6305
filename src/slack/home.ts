/**
 * The Home tab's publication (views.publish for one person): the home service (services/home.ts) gathers
 * what it shows, the renderer (blocks/home.ts) draws it, and this file puts Trunk's failures in words and
 * publishes.
 *
 * Clicks on the Home (its queue buttons, Connect) have no message to redraw and no response_url: a home
 * session collects what the click would have answered and re-publishes the Home with it on top.
 */
import type { BlockAction, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { HomeData } from '../services/home.ts';
import { actorIn } from './actor.ts';
import { describeTrunkFailure } from './blocks/errors.ts';
import { type HomeInput, renderHome } from './blocks/home.ts';
import type { SlackDeps } from './deps.ts';
import type { SlackReply } from './reply.ts';
import { publishView } from './reply.ts';

/** The gathered data in the renderer's terms: Trunk's errors become words a person can act on. */
export function homeInput(data: HomeData, appUrl?: string): HomeInput {
  const { canConnect, prProblems, queues, ...rest } = data;
  return {
    ...rest,
    ...(appUrl ? { appUrl } : {}),
    ...(canConnect
      ? {}
      : { connectBlocked: 'Connecting from Slack needs ENCRYPTION_KEY set where the app runs.' }),
    prProblems: prProblems.map((p) => ({ ref: p.ref, problem: describeTrunkFailure(p.error) })),
    queues: queues.map(({ reading, ...q }) =>
      reading
        ? {
            ...q,
            reading: reading.ok
              ? { ok: true, queue: reading.queue }
              : { ok: false, problem: describeTrunkFailure(reading.error) },
          }
        : q,
    ),
  };
}

/** Everything the Home shows, read for one person now. */
export async function gatherHome(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
): Promise<HomeInput> {
  const actor = actorIn(deps, client, workspaceId, userId);
  return homeInput(await deps.services.home.gather(actor), deps.settings.trunkAppUrl);
}

/** Builds the Home for a person and publishes it; false (logged) when Slack refused it. */
export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
  notices: SlackReply[] = [],
): Promise<boolean> {
  const input = await gatherHome(deps, client, workspaceId, userId);
  const view = renderHome({ ...input, notices });
  return publishView(deps, client, userId, view);
}

/** Whether a click came from a Home tab (no channel, no message, no response_url). */
export function isHomeClick(body: Pick<BlockAction, 'view'>): boolean {
  return body.view?.type === 'home';
}

/** What a click on the Home answers: collected, then shown on the Home when it is published again. */
export interface HomeSession {
  /** Stands in for response_url: replies become notices; a redraw (replace_original) asks for a re-publish. */
  respond: RespondFn;
  /** Re-publishes the Home when the click said or changed something (opening a modal alone does neither). */
  finish(): Promise<void>;
}

export function homeSession(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
): HomeSession {
  const notices: SlackReply[] = [];
  let redrawn = false;
  // Called the way sendReply and updateMessage call a response_url: text, blocks, replace_original.
  const respond = (async (msg: string | (SlackReply & { replace_original?: boolean })) => {
    const m = typeof msg === 'string' ? { text: msg } : msg;
    if (m.replace_original) {
      redrawn = true;
      return;
    }
    notices.push({ text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}) });
  }) as unknown as RespondFn;
  return {
    respond,
    async finish() {
      if (notices.length === 0 && !redrawn) return;
      await publishHome(deps, client, workspaceId, userId, notices);
    },
  };
}
