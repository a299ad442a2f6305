/**
 * The words of `/mergequeue digest …` replies: each answer of the digest domain (src/digest/manage.ts),
 * as one ephemeral message. Every refusal says what to do instead.
 */
import { type DigestAnswer, describeSchedule, repoLabel } from '../../digest/index.ts';
import type { SlackReply } from '../reply.ts';
import { escapeText } from './digest.ts';
import { trunkHint } from './errors.ts';
import { slackDate } from './format.ts';

export function digestReply(text: string): SlackReply {
  return { text, response_type: 'ephemeral' };
}

/** What a refused person tried, in words. */
const TRIED = {
  add: 'add digests to this channel',
  set: 'change this digest',
  remove: 'remove this digest',
  run: 'run this digest',
  owners: 'change who digests mention',
} as const;

export function renderDigestAnswer(a: DigestAnswer): SlackReply {
  return digestReply(digestAnswerText(a));
}

function digestAnswerText(a: DigestAnswer): string {
  switch (a.answer) {
    case 'not_channel_manager':
      return `Only operators and members of <#${a.channelId}> can ${TRIED[a.action]}. Join the channel, or ask an operator (workspace admins and owners are operators).`;
    case 'not_operator':
      return `Only operators can ${TRIED[a.action]}. Workspace admins and owners are operators; an operator can add you with \`/mergequeue config operators add @you\`.`;
    case 'no_such_digest':
      return `There is no digest \`${a.id}\` in this workspace. \`/mergequeue digest list\` shows the ids.`;
    case 'no_trunk_token':
      return 'This workspace has no Trunk API token yet, so digests cannot be made. An admin can store one with `/mergequeue connect`.';
    case 'repo_unknown':
      return `Trunk does not know the repository \`${repoLabel(a)}\` in organization \`${a.orgSlug}\`. Check the name (\`owner/repo\`, with the host first if it is not on github.com); nothing was saved.`;
    case 'repo_check_failed':
      return `Could not check \`${repoLabel(a)}\` with Trunk: ${a.error.userMessage} ${trunkHint(a.error)} Nothing was saved.`;
    case 'no_repo':
      return 'This channel has no repository yet. Name one, for example `/mergequeue digest add failing acme/web`, or set the channel’s with `/mergequeue config channel acme/web`.';
    case 'channel_full':
      return `This channel already has ${a.max} digests; remove one with \`/mergequeue digest remove <id>\` first.`;
    case 'added': {
      const sub = a.sub;
      const team = sub.owner ? ` owned by \`${escapeText(sub.owner)}\`` : '';
      if (sub.kind === 'health')
        return (
          `Added digest \`${sub.id}\`: the health of queue \`${repoLabel(sub)}\` (${sub.days === 'weekly' ? 'the last 7 days' : 'the last day'}, beside the window before), ${describeSchedule(sub)}, in <#${sub.channelId}>. ` +
          `The first is due ${slackDate(sub.nextDueAt)}. It is not posted when the queue merged and kicked nothing (\`digest set ${sub.id} skip-empty off\` to change); try it now with \`/mergequeue digest run ${sub.id}\`.`
        );
      return (
        `Added digest \`${sub.id}\`: ${sub.kind} tests${team} of \`${repoLabel(sub)}\`, ${describeSchedule(sub)}, in <#${sub.channelId}>. ` +
        `The first is due ${slackDate(sub.nextDueAt)}. It is not posted when there is nothing to report (\`digest set ${sub.id} skip-empty off\` to change), lists the top ${sub.topN} tests (\`digest set ${sub.id} top 20\`); try it now with \`/mergequeue digest run ${sub.id}\`.`
      );
    }
    case 'listed': {
      if (a.subs.length === 0)
        return 'No digests in this workspace yet. Add one with `/mergequeue digest add failing owner/repo 09:00`.';
      const lines = a.subs.map(
        (s) =>
          `• \`${s.id}\` ${s.kind} · \`${repoLabel(s)}\`${s.owner ? ` · owner \`${escapeText(s.owner)}\`` : ''} · ${describeSchedule(s)} · <#${s.channelId}> · top ${s.topN} · skip-empty ${s.skipEmpty ? 'on' : 'off'} · next ${slackDate(s.nextDueAt)}`,
      );
      const n = a.ownerMappings;
      const owners = n ? `\n${n} code owner mapping${n === 1 ? '' : 's'} (\`digest owners\`).` : '';
      // 38,000 of Slack's 40,000 characters a message, leaving room for the title and the owners line.
      return `*Digests (${a.subs.length})*\n${lines.join('\n').slice(0, 38_000)}${owners}`;
    }
    case 'changed':
      return `Digest \`${a.sub.id}\`: ${a.option} is now ${a.value}. It posts ${describeSchedule(a.sub)}; next due ${slackDate(a.sub.nextDueAt)}.`;
    case 'owners': {
      if (a.mentions.size === 0)
        return 'No code owners are mapped yet. Map one with `/mergequeue digest owners @acme/payments @alice @payments-team`.';
      const lines = [...a.mentions].map(([o, m]) => `• \`${escapeText(o)}\` → ${m.join(' ')}`);
      return `*Code owners mentioned in digests*\n${lines.join('\n')}`;
    }
    case 'owner_mapped':
      if (a.mentions.length === 0)
        return a.changed
          ? `Digests no longer mention anyone for \`${escapeText(a.owner)}\`.`
          : `\`${escapeText(a.owner)}\` was not mapped; nothing changed.`;
      return `Digests now mention ${a.mentions.join(' ')} for tests owned by \`${escapeText(a.owner)}\`.`;
    case 'removed':
      return `Removed digest \`${a.sub.id}\` (${a.sub.kind === 'health' ? 'the health' : `${a.sub.kind} tests`} of \`${repoLabel(a.sub)}\` in <#${a.sub.channelId}>).`;
    case 'run_cooling_down': {
      const by = a.lastStartedBy ? ` by <@${a.lastStartedBy}>` : '';
      return `Digest \`${a.sub.id}\` is already running or ran ${slackDate(a.lastStartedAt)}${by}; a digest can be run by hand once every ${Math.round(a.cooldownMs / 60_000)} minutes. Try again after ${slackDate(a.nextAllowedAt)}.`;
    }
    case 'run_busy':
      return `Every digest slot of this app is busy posting right now, so \`${a.sub.id}\` was not run. Try again in a minute.`;
    case 'run_started':
      return `Posting digest \`${a.sub.id}\` in <#${a.sub.channelId}> now.`;
  }
}
