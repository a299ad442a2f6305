/**
 * Connect on the Home tab: the `/mergequeue connect` modal, for operators. Anyone else is refused (audited
 * by the workspace service) and told on the Home; when the form is submitted the Home is published again
 * showing the connection.
 */
import type { App } from '@slack/bolt';
import type { Actor } from '../../../services/actor.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import { actorOf } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { openConnectModal } from '../../modals.ts';
import { sendReply } from '../../reply.ts';
import { NO_ENCRYPTION_KEY } from '../views/connect.ts';
import { registerButtonOf } from './button.ts';
import type { ClickArgs } from './click.ts';

interface ConnectClick {
  args: ClickArgs;
  actor: Actor;
}

export function registerHomeConnectButton(app: App, deps: SlackDeps): void {
  registerButtonOf<ConnectClick>(
    app,
    ACTIONS.homeConnect,
    async (_deps, args) => ({ args, actor: actorOf(args.context) }),
    async ({ args, actor }, triggerId) => {
      const { client, respond } = args;
      const gate = await deps.services.workspace.mayConnect(actor);
      if (gate.answer === 'refused') {
        await sendReply(deps, respond, renderRefusal('connect this workspace to Trunk', gate.because));
        return 'refused';
      }
      if (gate.answer === 'no_encryption_key') {
        await sendReply(deps, respond, { text: NO_ENCRYPTION_KEY, response_type: 'ephemeral' });
        return 'failed';
      }
      // The Home has no channel: answers about the form go to the person (their app DM), and the Home.
      const opened = await openConnectModal(deps, client, triggerId, actor.userId, actor.workspace.id, {
        home: true,
      });
      if (opened === 'failed')
        await sendReply(deps, respond, {
          text: 'The connect form could not be opened. Press Connect again.',
        });
      return opened;
    },
  );
}
