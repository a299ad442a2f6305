/**
 * link_shared: someone pasted (or is composing) a message with links on the app's unfurl domains (Trunk's web
 * app, github.com). The unfurl service decides which of them this person may unfurl here and reads them; the
 * answer is rendered and sent with chat.unfurl. Nothing is said when nothing unfurls: the link stays as it is.
 * Bolt has acknowledged the event before this runs, so the Trunk reads never hold up Slack's 3 s.
 */
import type { App } from '@slack/bolt';
import { afterAck } from '../../after-ack.ts';
import { renderUnfurls } from '../../blocks/unfurl.ts';
import { actorOf, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { channelFacts } from '../../shared-channels.ts';

/** Slack's channel for a link still in the message composer. */
const COMPOSER = 'COMPOSER';

export function registerLinkUnfurls(app: App, deps: SlackDeps): void {
  app.event<'link_shared', RequestContext>('link_shared', async ({ event, context, client }) => {
    const composer = event.source === 'composer' || event.channel === COMPOSER;
    if (composer && !event.unfurl_id) return;
    await afterAck();
    // link_shared names who pasted the links: the context's actor is theirs.
    const actor = actorOf(context);
    let outcome = 'none';
    try {
      const answer = await context.services.unfurls.unfurl(
        actor,
        {
          channelId: composer ? undefined : event.channel,
          botIsMember: event.is_bot_user_member === true,
          urls: (event.links ?? []).map((l) => l.url),
        },
        channelFacts(client),
      );
      if (answer.answer === 'unfurls') {
        const unfurls = renderUnfurls(answer.unfurls, {
          appUrl: deps.settings.trunkAppUrl,
          orgSlug: answer.orgSlug,
        });
        const where =
          composer && event.unfurl_id
            ? { unfurlId: event.unfurl_id, source: event.source ?? 'composer' }
            : { channel: event.channel, ts: event.message_ts };
        outcome = (await context.reply.unfurl(where, unfurls)) ? 'ok' : 'failed';
      } else deps.logger.debug({ why: answer.why }, 'link_shared: nothing to unfurl');
    } catch (err) {
      // The store or Slack did not answer: the link stays without an unfurl.
      outcome = 'failed';
      deps.logger.error({ err }, 'could not unfurl links');
    }
    deps.metrics.interactions.inc({ name: 'link_shared', outcome });
  });
}
