/**
 * Ephemeral replies for everything that went wrong: a usage error, a refusal, a missing default target, a
 * Trunk failure. Each says what happened and what to try; none contains a stack trace or a secret.
 */
import { isStoreNotAnswering } from '../../core/store-not-answering.ts';
import { PULL_REQUEST_WRITES } from '../../trunk/api.ts';
import { isTrunkError, type TrunkError, TrunkRateLimitedError } from '../../trunk/errors.ts';
import type { SlackReply } from '../reply.ts';
import { escTrim } from './format.ts';
import { context, section } from './kit.ts';

function reply(what: string, hint: string): SlackReply {
  return {
    text: escTrim(`${what} ${hint}`, 3000),
    blocks: [section(`:warning: ${escTrim(what, 1500)}`), context(escTrim(hint, 1500))],
    response_type: 'ephemeral',
  };
}

/** What to do about a Trunk error, in words for Slack: one sentence, naming the command that helps. */
export function trunkHint(err: TrunkError): string {
  switch (err.kind) {
    case 'auth':
      return 'An admin can store a current token with `/mergequeue connect` (Trunk → Settings → API token).';
    case 'not_found':
      return 'Check the repository, branch or number, for example `/mergequeue status acme/web:main`.';
    case 'invalid_request':
      return 'Check the values and try again; `/mergequeue help` shows the accepted forms.';
    case 'rate_limited': {
      const ms = err instanceof TrunkRateLimitedError ? err.retryAfterMs : undefined;
      return ms ? `Try again in about ${Math.ceil(ms / 1000)} s.` : 'Try again in a minute.';
    }
    case 'unavailable':
      // A write that timed out or failed mid-flight may still have been applied by Trunk: never claim otherwise.
      if (err.operation === 'updateQueue')
        return 'Trunk may have applied the change anyway: check `/mergequeue status` before trying again. If it persists, see https://status.trunk.io.';
      // v2 operations are all reads: only v1's PR writes may have happened anyway.
      if ((PULL_REQUEST_WRITES as ReadonlySet<string>).has(err.operation))
        return 'Trunk may have done it anyway: check `/mergequeue pr <number>` before trying again. If it persists, see https://status.trunk.io.';
      return 'Nothing was changed. Try again in a minute; if it persists, check https://status.trunk.io.';
    case 'invalid_response':
      return 'Try again later; if it persists, tell whoever runs this app (the log has details).';
    case 'busy':
      return 'Try again in a few seconds; if it happens often, whoever runs this app can raise `TRUNK_MAX_RPS`.';
  }
}

/** A Trunk error as one sentence of what happened and what to do; anything else stays in the log. */
export function describeTrunkFailure(err: unknown): string {
  if (isTrunkError(err)) return `${err.userMessage} ${trunkHint(err)}`;
  return 'something went wrong on our side (the log has details)';
}

/** For any thrown value. Trunk errors carry their own sentence and hint; anything else is generic. */
export function renderError(err: unknown): SlackReply {
  if (isTrunkError(err)) return reply(err.userMessage, trunkHint(err));
  if (isStoreNotAnswering(err))
    return reply(
      "The app's store (its database) is not answering, so nothing was changed.",
      'Try again in a minute; if it persists, tell whoever runs this app.',
    );
  return reply(
    'Something went wrong on our side and nothing was changed.',
    'Try again in a minute; if it persists, tell whoever runs this app (the log has details).',
  );
}

export function renderUsageError(error: string, usage: string): SlackReply {
  return {
    text: escTrim(`${error} Usage: ${usage}`, 3000),
    blocks: [
      section(`:warning: ${escTrim(error, 2000)}`),
      section(`Type it as:\n\`${escTrim(usage.replaceAll('`', "'"), 900)}\``),
    ],
    response_type: 'ephemeral',
  };
}

export function renderRefusal(
  actionWords: string,
  because: string,
  hint = 'Ask a workspace admin to add you with `/mergequeue config operators add @you`. Nothing was changed.',
): SlackReply {
  return reply(`You can't ${actionWords}: ${because}.`, hint);
}

/** A refusal to start, change or end a channel's feed (services/watch.ts's rule): an operator may, or no one. */
export function renderFeedRefusal(a: { what: string; because: string; operatorsMay: boolean }): SlackReply {
  return renderRefusal(
    a.what,
    a.because,
    a.operatorsMay
      ? 'Ask an operator (workspace admins and owners are operators). Nothing was changed.'
      : 'Nothing was changed.',
  );
}

export function renderNoTarget(): SlackReply {
  return reply(
    'Which queue? No repository was given and none is set as a default here.',
    'Name one, e.g. `/mergequeue status acme/web:main`, or set a default with `/mergequeue config channel acme/web:main`.',
  );
}

export function renderNotConnected(): SlackReply {
  return reply(
    'This workspace is not connected to Trunk yet.',
    'An operator can connect it with `/mergequeue connect` (you need a Trunk API token and the org slug).',
  );
}

/** Flaky-test listings need the org slug, which comes with `connect` (or TRUNK_ORG_SLUG). */
export function renderNoOrgSlug(): SlackReply {
  return reply(
    'The Trunk organization slug is not known for this workspace.',
    'Store it with `/mergequeue connect` (Trunk → Settings → Organization → slug).',
  );
}

export function renderInvalidButton(): SlackReply {
  return reply(
    'That button is no longer valid for this workspace, so nothing was changed.',
    'Post a fresh status with `/mergequeue status`.',
  );
}
