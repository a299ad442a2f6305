/**
 * The one list of Slack errors after which retrying cannot help, with one meaning each. Every post, edit,
 * note and workflow-step completion the app sends on its own initiative is judged by this list (the outbox), and a command's channel
 * post falls back to response_url on the same `channel` codes (reply.ts). docs/reliability.md
 * ("Final Slack errors") records what each one leads to; keep the two in step.
 *
 * What is not here (5xx, network errors, timeouts, `ratelimited` beyond the retry policy's patience,
 * anything unknown) is passing trouble: the caller retries it within its grace (queue events next tick,
 * a digest occurrence after a backoff), never dropping it silently.
 */
import type { Refusal } from '../../core/notifier.ts';

/** Slack error code → what is closed to the app. */
export const FINAL_SLACK_ERRORS: ReadonlyMap<string, Refusal> = new Map<string, Refusal>([
  // The channel is closed to us until a person acts: a feed is paused and its creator told, a digest
  // occurrence ends and its creator is told, a live message there is forgotten, a command's post falls
  // back to response_url.
  ['not_in_channel', 'channel'],
  ['channel_not_found', 'channel'],
  ['is_archived', 'channel'],
  ['restricted_action', 'channel'],
  // The message to edit is gone or no longer ours to edit: the live message is forgotten at once.
  ['message_not_found', 'message'],
  ['cant_update_message', 'message'],
  // The dashboard's canvas was deleted: the dashboard stops.
  ['canvas_not_found', 'message'],
  // The person cannot be written to: the note to them is forgotten.
  ['user_not_found', 'person'],
  ['user_disabled', 'person'],
  ['cannot_dm_bot', 'person'],
  // The app's token no longer works in this workspace: everything to it is forgotten and logged at error;
  // nobody can be told in Slack (the token cannot post) until the app is re-installed.
  ['invalid_auth', 'workspace'],
  ['not_authed', 'workspace'],
  ['token_revoked', 'workspace'],
  ['account_inactive', 'workspace'],
  ['missing_scope', 'workspace'],
  ['no_installation', 'workspace'],
  // A Workflow Builder step's execution cannot be completed: it is gone or already completed, its workflow
  // was cancelled or ended, or Slack refuses this answer itself. The wait is given up (logged).
  ['function_execution_not_found', 'execution'],
  ['execution_not_in_running_state', 'execution'],
  ['access_denied', 'execution'],
  ['parameter_validation_failed', 'execution'],
  ['invalid_arguments', 'execution'],
]);

/** What is closed to the app after this error, or undefined when a retry may succeed. */
export function refusalOf(code: string): Refusal | undefined {
  return FINAL_SLACK_ERRORS.get(code);
}
