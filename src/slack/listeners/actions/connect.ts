/**
 * Connect on the Home tab: the `/mergequeue connect` modal, for operators. Anyone else is refused (audited)
 * and told on the Home; when the form is submitted the Home is published again showing the connection.
 */
import type { App } from '@slack/bolt';
import { recordRefusal } from '../../../queue/service.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import { openConnectModal } from '../../modals.ts';
import { NO_ENCRYPTION_KEY } from '../views/connect.ts';
import { type ClickArgs, clickWorkspaceId, registerButtonOf } from './click.ts';

interface ConnectClick {
  args: ClickArgs;
  workspaceId: string;
}

export function register(app: App, deps: SlackDeps): void {
  registerButtonOf<ConnectClick>(
    app,
    deps,
    ACTIONS.homeConnect,
    async (_deps, args) => ({ args, workspaceId: clickWorkspaceId(args) }),
    async ({ args, workspaceId }, triggerId) => {
      const { body, client, respond } = args;
      const userId = body.user.id;
      const decision = await mayOperate(deps, client, workspaceId, userId, body.user.team_id);
      if (!decision.allowed) {
        await recordRefusal(
          { store: deps.store, workspaceId, userId, now: deps.now },
          'connect',
          '',
          decision.because,
        );
        await sendReply(deps, respond, renderRefusal('connect this workspace to Trunk', decision.because));
        return 'refused';
      }
      if (deps.config.encryptionKeys.length === 0) {
        await sendReply(deps, respond, { text: NO_ENCRYPTION_KEY, response_type: 'ephemeral' });
        return 'failed';
      }
      // The Home has no channel: answers about the form go to the person (their app DM), and the Home.
      const opened = await openConnectModal(deps, client, triggerId, userId, workspaceId, { home: true });
      if (opened === 'failed')
        await sendReply(deps, respond, {
          text: 'The connect form could not be opened. Press Connect again.',
        });
      return opened;
    },
  );
}
