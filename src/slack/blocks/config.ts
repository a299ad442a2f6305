/** Replies to `/mergequeue config …` and `connect`: what is set, and what changed. */
import type { KnownBlock } from '@slack/types';
import { formatTargetSpec, type TargetSpec } from '../../core/target.ts';
import type { ConfigView, OperatorsChange } from '../../workspace/config.ts';
import type { SlackReply } from '../reply.ts';
import { esc, escTrim, mention } from './format.ts';
import { context, section } from './kit.ts';

export function who(p: { kind: 'user' | 'usergroup'; id: string }): string {
  if (p.kind === 'usergroup') return /^S[A-Z0-9]{1,30}$/.test(p.id) ? `<!subteam^${p.id}>` : esc(p.id);
  return mention(p.id);
}

function targetText(t: TargetSpec | undefined): string {
  return t ? `\`${escTrim(formatTargetSpec(t), 400)}\`` : '_not set_';
}

function ephemeral(text: string, blocks: KnownBlock[]): SlackReply {
  return { text: text.slice(0, 3000), blocks, response_type: 'ephemeral' };
}

export function renderConfig(view: ConfigView): SlackReply {
  const ops = view.operators.slice(0, 40).map(who);
  const more = view.operators.length > 40 ? ` and ${view.operators.length - 40} more` : '';
  return ephemeral('mergequeue configuration', [
    section(
      [
        `*This channel's default queue:* ${targetText(view.channelDefault)}`,
        `*Workspace default queue:* ${targetText(view.workspaceDefault)}`,
        `*Trunk:* ${view.hasTrunkCredentials ? `connected${view.trunkOrgSlug ? ` (org \`${escTrim(view.trunkOrgSlug, 200)}\`)` : ''}` : 'not connected — `/mergequeue connect`'}`,
        `*Operators:* ${ops.length ? ops.join(', ') + more : 'none listed'}`,
        `*Installed by:* ${view.installerUserId ? mention(view.installerUserId) : 'unknown'}`,
        ...(view.unfurlGithub === undefined
          ? []
          : [
              `*GitHub PR links unfurl:* ${view.unfurlGithub ? 'on' : 'off'} — \`/mergequeue config unfurl github ${view.unfurlGithub ? 'off' : 'on'}\` (Trunk links always do)`,
            ]),
      ].join('\n'),
    ),
    context('Workspace admins and owners and the installing user are operators by right.'),
  ]);
}

export function renderDefaultChanged(scope: 'channel' | 'workspace', target: TargetSpec | null): SlackReply {
  const where = scope === 'channel' ? "This channel's" : "The workspace's";
  const text = target
    ? `${where} default queue is now ${targetText(target)}.`
    : `${where} default queue is cleared.`;
  return ephemeral(text, [section(`:white_check_mark: ${text}`)]);
}

export function renderOperatorsChanged(op: 'add' | 'remove', r: OperatorsChange): SlackReply {
  const lines: string[] = [];
  if (r.changed.length)
    lines.push(`:white_check_mark: ${op === 'add' ? 'Added' : 'Removed'}: ${r.changed.map(who).join(', ')}`);
  if (r.unchanged.length)
    lines.push(
      `${op === 'add' ? 'Already operators' : 'Were not operators'}: ${r.unchanged.map(who).join(', ')}`,
    );
  if (r.unresolved.length)
    lines.push(
      `:warning: Not found: ${r.unresolved.map((n) => `@${escTrim(n, 80)}`).join(', ')} — mention them so Slack links the name.`,
    );
  if (lines.length === 0) lines.push('Nothing changed.');
  return ephemeral(lines.join(' ').replace(/:[a-z_]+: /g, ''), [section(lines.join('\n'))]);
}

export function renderOperatorsList(view: Pick<ConfigView, 'operators' | 'installerUserId'>): SlackReply {
  const ops = view.operators.slice(0, 80);
  const lines = ops.map((o) => `• ${who(o)} — added by ${mention(o.addedBy)}`);
  if (view.operators.length > ops.length) lines.push(`…and ${view.operators.length - ops.length} more`);
  return ephemeral(`${view.operators.length} operators`, [
    section(lines.length ? `*Operators*\n${lines.join('\n')}` : '*Operators:* none listed.'),
    context(
      `Workspace admins and owners${view.installerUserId ? ` and ${mention(view.installerUserId)} (installed the app)` : ''} are operators by right. Add more with \`/mergequeue config operators add @name\`.`,
    ),
  ]);
}

export function renderConnected(
  orgSlug: string,
  defaultTarget?: TargetSpec,
  v2Key: 'stored' | 'removed' | 'kept' = 'kept',
  /** Trunk's webhooks: this workspace's endpoint path and what happened to its signing secrets. */
  webhooks?: { path: string; secrets: 'stored' | 'removed' | 'kept' },
): SlackReply {
  const v2 =
    v2Key === 'stored'
      ? ' The v2 API key is stored: `/mergequeue why` and `eta` read Trunk v2.'
      : v2Key === 'removed'
        ? ' The v2 API key is removed: `why` and `eta` answer from v1.'
        : '';
  const text = `Connected to Trunk organization \`${escTrim(orgSlug, 200)}\`${defaultTarget ? `, default queue ${targetText(defaultTarget)}` : ''}.${v2}`;
  const hooks = webhooks
    ? `${webhooks.secrets === 'stored' ? 'Webhook signing secrets stored. ' : webhooks.secrets === 'removed' ? 'Webhook signing secrets removed. ' : ''}Trunk webhooks for this workspace go to \`${escTrim(webhooks.path, 200)}\` on this app's public address (Trunk → Merge Queue → Settings → Webhooks; tick \`pull_request.*\` and \`pull_request_batch.*\`).`
    : undefined;
  return ephemeral(text, [
    section(`:white_check_mark: ${text}`),
    ...(hooks ? [context(hooks)] : []),
    context('Try `/mergequeue status`.'),
  ]);
}

/** `config unfurl github on|off` done (or already so). */
export function renderUnfurlGithubSet(on: boolean, changed: boolean): SlackReply {
  const text = on
    ? `Pasted GitHub PR links of this workspace's repositories ${changed ? 'now unfurl' : 'already unfurl'} with their queue state.`
    : `Pasted GitHub PR links ${changed ? 'no longer unfurl' : 'already do not unfurl'} (Trunk links still do).`;
  return ephemeral(text, [
    section(`${changed ? ':white_check_mark: ' : ''}${text}`),
    context(
      on
        ? "If another app (such as GitHub's) unfurls GitHub links too, Slack may show both previews: `/mergequeue config unfurl github off` turns ours off."
        : '`/mergequeue config unfurl github on` turns them back on.',
    ),
  ]);
}
