/**
 * Connect modal submission. Before anything is stored the token is tried with one read call (see
 * verifyToken): a rejected token, or a Trunk that cannot be reached, is reported in the modal.
 * The token is never echoed back, logged or shown; saving again replaces it.
 *
 * Slack shows an error if the answer takes over 3 s, so the checks (user lookup, store read, Trunk call)
 * share one budget counted from the request's arrival (answer-budget.ts); when they overrun, the form
 * says so and nothing is saved; the token is stored only while there is still time to say it was.
 */
import type { App } from '@slack/bolt';
import { interactionActor } from '../../actor.ts';
import { answerBudget, OutOfTime } from '../../answer-budget.ts';
import { renderConnected } from '../../blocks/config.ts';
import { CONNECT_BLOCKS, parseConnectSubmission } from '../../blocks/connect.ts';
import { CALLBACKS } from '../../blocks/ids.ts';
import type { SubmissionValues } from '../../blocks/settings.ts';
import type { SlackDeps } from '../../deps.ts';
import { publishHome } from '../../home.ts';
import { unwrapMetadata } from '../../modals.ts';
import { tellPrivately } from '../../reply.ts';

/** Kept back from the answer budget for storing the token and answering. */
const SAVE_RESERVE_MS = 400;

export const TOO_SLOW =
  'Slack or Trunk was too slow to answer just now, so the token was not saved. Submit the form again.';

export const NO_ENCRYPTION_KEY =
  'This app cannot store a Trunk token yet: whoever runs it must set ENCRYPTION_KEY (openssl rand -base64 32) and restart, or set TRUNK_API_TOKEN and TRUNK_ORG_SLUG in its environment.';

export function registerConnectView(app: App, deps: SlackDeps): void {
  app.view(CALLBACKS.connect, async ({ ack, body, view, client, context }) => {
    const budget = answerBudget();
    const parsed = parseConnectSubmission(view.state.values as SubmissionValues);
    const meta = unwrapMetadata(view.private_metadata);
    const fail = async (errors: Record<string, string>, outcome: string) => {
      await ack({ response_action: 'errors', errors });
      deps.metrics.interactions.inc({ name: CALLBACKS.connect, outcome });
    };
    if (!parsed.ok) return fail(parsed.errors, 'invalid');

    // The form's operator check does not read the payload's own team (as before this layer).
    const actor = interactionActor(deps, client, context, body, { checkPayloadTeam: false });
    const token = CONNECT_BLOCKS.token;
    try {
      const a = await deps.services.workspace.connect(actor, parsed.input, budget, SAVE_RESERVE_MS);
      switch (a.answer) {
        case 'refused':
          return fail({ [token]: `You can't connect Trunk: ${a.because}.` }, 'refused');
        case 'no_encryption_key':
          return fail({ [token]: NO_ENCRYPTION_KEY }, 'failed');
        case 'token_rejected':
          return fail(
            {
              [token]:
                'Trunk rejected this token. Copy it again from Trunk → Settings → Organization → API token.',
            },
            'failed',
          );
        case 'token_unchecked':
          return fail({ [token]: `${a.error.userMessage} The token was not saved; try again.` }, 'failed');
        case 'check_failed':
          return fail({ [token]: 'The token could not be checked. Try again.' }, 'failed');
        case 'v2_key_rejected':
          return fail(
            {
              [CONNECT_BLOCKS.v2Key]:
                'Trunk rejected this v2 key. Copy it again from Trunk → Settings → Developer → API Keys, or leave the field empty.',
            },
            'failed',
          );
        case 'v2_key_unchecked':
          return fail(
            { [CONNECT_BLOCKS.v2Key]: `${a.error.userMessage} Nothing was saved; try again.` },
            'failed',
          );
        case 'save_failed':
          return fail({ [token]: 'The token could not be saved. Try again.' }, 'failed');
        case 'connected':
          break;
      }
      await ack();
      deps.metrics.interactions.inc({ name: CALLBACKS.connect, outcome: 'ok' });
      const connected = renderConnected(a.orgSlug, a.defaultTarget, a.v2Key, a.webhooks);
      // From the Home tab: the Home shows the connection (and this answer) at once.
      if (meta?.h) await publishHome(deps, client, actor.workspace.id, actor.userId, [connected]);
      else if (meta)
        await tellPrivately(
          deps,
          client,
          { workspaceId: actor.workspace.id, channel: meta.c, userId: actor.userId },
          connected,
        );
    } catch (err) {
      if (err instanceof OutOfTime) {
        deps.logger.warn('connect submission ran out of time before saving; nothing was saved');
        return fail({ [CONNECT_BLOCKS.token]: TOO_SLOW }, 'timeout');
      }
      deps.logger.error({ err }, 'connect submission failed');
      return fail(
        { [CONNECT_BLOCKS.token]: 'Something went wrong on our side; nothing was saved. Try again.' },
        'failed',
      );
    }
  });
}
