/**
 * The response_url sender a modal submission needs to update the message its button was on. (Who is
 * acting on a PR is the PR service's question now: services/prs.ts, from the request's Actor.)
 */
import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { SlackDeps } from './deps.ts';

/**
 * A respond() for a response_url carried through a modal's private_metadata. Only Slack's own hosts (or
 * the configured Slack API's, for the fake) are posted to, so metadata cannot point the app elsewhere.
 */
export function respondVia(deps: SlackDeps, url: string | undefined): RespondFn | undefined {
  if (!url) return undefined;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const api = new URL(deps.settings.apiUrl);
  const slackHost = target.protocol === 'https:' && target.hostname === 'hooks.slack.com';
  if (!slackHost && target.origin !== api.origin) return undefined;
  return async (message: string | RespondArguments) => {
    const body = typeof message === 'string' ? { text: message } : message;
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });
    if (!res.ok) throw new Error(`response_url answered ${res.status}`);
    return res;
  };
}
