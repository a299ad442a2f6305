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
import { DEFAULT_HOST, type QueueRef, resolveTarget } from '../../../core/target.ts';
import type { TrunkApi } from '../../../trunk/api.ts';
import { isTrunkError } from '../../../trunk/errors.ts';
import { connectTrunk } from '../../../workspace/config.ts';
import { answerBudget, OutOfTime } from '../../answer-budget.ts';
import { renderConnected } from '../../blocks/config.ts';
import { CONNECT_BLOCKS, parseConnectSubmission } from '../../blocks/connect.ts';
import { CALLBACKS } from '../../blocks/ids.ts';
import type { SubmissionValues } from '../../blocks/settings.ts';
import type { SlackDeps } from '../../deps.ts';
import { publishHome } from '../../home.ts';
import { auditLostSink, mayOperate, workspaceIdOf } from '../../interaction.ts';
import { unwrapMetadata } from '../../modals.ts';
import { tellPrivately } from './settings.ts';

/** The check must finish well inside the 3 s Slack gives a view submission. */
const VERIFY_DEADLINE_MS = 2_000;
/** Kept back from the answer budget for storing the token and answering. */
const SAVE_RESERVE_MS = 400;

export const TOO_SLOW =
  'Slack or Trunk was too slow to answer just now, so the token was not saved. Submit the form again.';

export const NO_ENCRYPTION_KEY =
  'This app cannot store a Trunk token yet: whoever runs it must set ENCRYPTION_KEY (openssl rand -base64 32) and restart, or set TRUNK_API_TOKEN and TRUNK_ORG_SLUG in its environment.';

/**
 * One read call with the new token: getQueue on the default queue when there is one, otherwise the
 * quarantined-tests list of a repository named after the organization (any answer but 401/403 proves
 * the token, since Trunk authenticates before it looks anything up).
 */
async function verifyToken(
  api: TrunkApi,
  ref: QueueRef | undefined,
  orgSlug: string,
  deadlineMs: number,
): Promise<void> {
  const opts = { deadlineMs: Math.max(1, Math.min(VERIFY_DEADLINE_MS, deadlineMs)) };
  if (ref) {
    await api.getQueue({ repo: ref.repo, targetBranch: ref.branch }, opts);
    return;
  }
  await api.listQuarantinedTests(
    {
      repo: { host: DEFAULT_HOST, owner: orgSlug, name: 'mergequeue-token-check' },
      org_url_slug: orgSlug,
      page_query: { page_size: 1, page_token: '' },
    },
    opts,
  );
}

export function register(app: App, deps: SlackDeps): void {
  app.view(CALLBACKS.connect, async ({ ack, body, view, client, context }) => {
    const budget = answerBudget();
    const parsed = parseConnectSubmission(view.state.values as SubmissionValues);
    const meta = unwrapMetadata(view.private_metadata);
    const fail = async (errors: Record<string, string>, outcome: string) => {
      await ack({ response_action: 'errors', errors });
      deps.metrics.interactions.inc({ name: CALLBACKS.connect, outcome });
    };
    if (!parsed.ok) return fail(parsed.errors, 'invalid');

    const workspaceId = workspaceIdOf({
      teamId: context.teamId ?? body.team?.id,
      enterpriseId: context.enterpriseId ?? body.enterprise?.id,
      isEnterpriseInstall: context.isEnterpriseInstall,
    });
    const userId = body.user.id;
    const ctx = { store: deps.store, workspaceId, userId, now: deps.now, auditLost: auditLostSink(deps) };
    try {
      const decision = await budget.within(mayOperate(deps, client, workspaceId, userId), SAVE_RESERVE_MS);
      if (!decision.allowed)
        return fail({ [CONNECT_BLOCKS.token]: `You can't connect Trunk: ${decision.because}.` }, 'refused');

      if (deps.config.encryptionKeys.length === 0)
        return fail({ [CONNECT_BLOCKS.token]: NO_ENCRYPTION_KEY }, 'failed');

      const ws = await budget.within(deps.store.getWorkspace(workspaceId), SAVE_RESERVE_MS);
      const ref = resolveTarget(parsed.input.defaultTarget, ws?.defaultTarget, deps.config.defaultTarget);
      try {
        const api = deps.workspaces.trunkWithToken(parsed.input.token, parsed.input.orgSlug);
        await budget.within(
          verifyToken(api, ref, parsed.input.orgSlug, budget.left(SAVE_RESERVE_MS)),
          SAVE_RESERVE_MS,
        );
      } catch (err) {
        if (err instanceof OutOfTime) throw err;
        // Trunk checks the token before it looks for the repository: "not found" still proves the token works.
        if (!isTrunkError(err) || err.kind !== 'not_found') {
          const words = isTrunkError(err)
            ? err.kind === 'auth'
              ? 'Trunk rejected this token. Copy it again from Trunk → Settings → Organization → API token.'
              : `${err.userMessage} The token was not saved; try again.`
            : 'The token could not be checked. Try again.';
          return fail({ [CONNECT_BLOCKS.token]: words }, 'failed');
        }
      }
      const result = await connectTrunk(ctx, parsed.input);
      deps.workspaces.invalidate(workspaceId);
      if (!result.ok)
        return fail({ [CONNECT_BLOCKS.token]: 'The token could not be saved. Try again.' }, 'failed');
      await ack();
      deps.metrics.interactions.inc({ name: CALLBACKS.connect, outcome: 'ok' });
      const connected = renderConnected(parsed.input.orgSlug, parsed.input.defaultTarget);
      // From the Home tab: the Home shows the connection (and this answer) at once.
      if (meta?.h) await publishHome(deps, client, workspaceId, userId, [connected]);
      else if (meta) await tellPrivately(deps, client, meta.c, userId, connected);
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
