/**
 * app_home_opened: the person opened the app's Home tab; it is built fresh for them and published
 * (views.publish). Bolt has acknowledged the event before this runs, so the Trunk reads (a small budget,
 * see services/home.ts) never hold up Slack's 3 s. The Messages tab sends the same event and is left alone.
 */
import type { App } from '@slack/bolt';
import { workspaceIdOf } from '../../actor.ts';
import { afterAck } from '../../after-ack.ts';
import type { SlackDeps } from '../../deps.ts';
import { publishHome } from '../../home.ts';

export function registerHomeTab(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event, body, context, client }) => {
    if (event.tab !== 'home') return;
    const workspaceId = workspaceIdOf({
      teamId: context.teamId ?? body.team_id,
      enterpriseId: context.enterpriseId ?? body.enterprise_id,
      isEnterpriseInstall: context.isEnterpriseInstall ?? false,
    });
    if (!workspaceId) return;
    await afterAck();
    let outcome = 'ok';
    try {
      if (!(await publishHome(deps, client, workspaceId, event.user))) outcome = 'failed';
    } catch (err) {
      // The store did not answer: the person keeps the Home they had; the next opening tries again.
      outcome = 'failed';
      deps.logger.error({ err }, 'could not build the Home tab');
    }
    deps.metrics.interactions.inc({ name: 'app_home_opened', outcome });
  });
}
