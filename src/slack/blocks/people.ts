/** Replies of the people service that say what the app keeps about a person (`me forget`). */
import type { Forgotten } from '../../services/people.ts';
import type { SlackReply } from '../reply.ts';
import { plural } from './format.ts';
import { context, section } from './kit.ts';

/** `me forget` done: what was removed, and what is still kept and for how long. */
export function renderForgottenRecords(f: Forgotten): SlackReply {
  const main =
    'Your GitHub link is removed. No more notes about your PRs. ' +
    `The login was also removed from the audit log (${plural(f.auditEntries, 'place')}) and ${plural(f.deliveries, 'record')} of notes sent to you ${f.deliveries === 1 ? 'was' : 'were'} deleted.`;
  const kept =
    `What remains: audit entries of what you did here, under your Slack id but without the login, for up to ${plural(f.auditRetentionDays, 'day')}; ` +
    `queue events as Trunk reported them (a PR's author as GitHub names them) for ${plural(f.queueEventDays, 'day')}. Both are then deleted.`;
  return {
    text: main,
    blocks: [section(`:wastebasket: ${main}`), context(kept)],
    response_type: 'ephemeral',
  };
}
