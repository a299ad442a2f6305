/**
 * Making a dashboard's canvas (services/dashboard.ts's DashboardCanvases), through the request's client:
 * the channel's own canvas (conversations.canvases.create) where the channel has none yet; where it has one
 * (`channel_canvas_already_exists`, or a free team's canvas tab taken), a standalone canvas
 * (canvases.create) that the channel's members may read (canvases.access.set). Slack's error code otherwise.
 */
import type { WebClient } from '@slack/web-api';
import type { CanvasMade, DashboardCanvases } from '../services/dashboard.ts';
import { slackAnswer } from './api-errors.ts';

/** The channel has its canvas already: a standalone one is shared with it instead. */
const HAS_ONE = new Set(['channel_canvas_already_exists', 'free_team_canvas_tab_already_exists']);

const codeOf = (err: unknown) => slackAnswer(err) ?? (err instanceof Error ? err.message : 'unknown_error');

export function dashboardCanvases(client: WebClient): DashboardCanvases {
  return {
    async create(channelId, title, markdown): Promise<CanvasMade> {
      const document_content = { type: 'markdown' as const, markdown };
      try {
        const made = await client.conversations.canvases.create({
          channel_id: channelId,
          title,
          document_content,
        });
        if (made.canvas_id) return { ok: true, canvasId: made.canvas_id, channelCanvas: true };
        return { ok: false, code: 'no_canvas_id' };
      } catch (err) {
        if (!HAS_ONE.has(slackAnswer(err) ?? '')) return { ok: false, code: codeOf(err) };
      }
      let canvasId: string;
      try {
        const made = await client.canvases.create({ title, document_content });
        if (!made.canvas_id) return { ok: false, code: 'no_canvas_id' };
        canvasId = made.canvas_id;
      } catch (err) {
        return { ok: false, code: codeOf(err) };
      }
      try {
        await client.canvases.access.set({
          canvas_id: canvasId,
          access_level: 'read',
          channel_ids: [channelId],
        });
      } catch (err) {
        // Not shared with the channel: nobody there could open it, so it is not kept.
        await client.canvases.delete({ canvas_id: canvasId }).catch(() => undefined);
        return { ok: false, code: codeOf(err) };
      }
      return { ok: true, canvasId, channelCanvas: false };
    },
  };
}
