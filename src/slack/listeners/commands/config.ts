/**
 * `/mergequeue config …`: show the defaults and operators (anyone), change them (operators only).
 */

import { recordRefusal } from '../../../queue/service.ts';
import {
  changeOperators,
  readConfig,
  setChannelDefault,
  setWorkspaceDefault,
} from '../../../workspace/config.ts';
import {
  renderConfig,
  renderDefaultChanged,
  renderOperatorsChanged,
  renderOperatorsList,
} from '../../blocks/config.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import type { ConfigCommand } from '../../commands/grammar.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import { linkPerson } from './people.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function configure(req: CommandRequest, c: ConfigCommand): Promise<Outcome> {
  const { deps } = req;
  if (c.kind === 'people') return linkPerson(req, c.userId, c.login);
  const ctx = { store: deps.store, workspaceId: req.workspaceId, userId: req.userId, now: deps.now };
  if (c.kind === 'show' || (c.kind === 'operators' && c.op === 'list')) {
    const view = await readConfig(ctx, req.channelId);
    // DEFAULT_REPO and TRUNK_API_TOKEN count as the workspace's own in single-workspace mode.
    if (!view.workspaceDefault && deps.config.defaultTarget)
      view.workspaceDefault = deps.config.defaultTarget;
    if (!view.hasTrunkCredentials && deps.config.slack.mode !== 'oauth' && deps.config.trunk.token) {
      view.hasTrunkCredentials = true;
      if (deps.config.trunk.orgSlug) view.trunkOrgSlug = deps.config.trunk.orgSlug;
    }
    await sendReply(deps, req.respond, c.kind === 'show' ? renderConfig(view) : renderOperatorsList(view));
    return 'ok';
  }
  const decision = await mayOperate(deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    await recordRefusal(ctx, `config.${c.kind}`, '', decision.because);
    await sendReply(deps, req.respond, renderRefusal('change the configuration', decision.because));
    return 'refused';
  }
  if (c.kind === 'channel') {
    await setChannelDefault(ctx, req.channelId, c.target);
    await sendReply(deps, req.respond, renderDefaultChanged('channel', c.target));
    return 'ok';
  }
  if (c.kind === 'workspace') {
    await setWorkspaceDefault(ctx, c.target);
    await sendReply(deps, req.respond, renderDefaultChanged('workspace', c.target));
    return 'ok';
  }
  const r = await changeOperators(ctx, c.op, c.principals);
  await sendReply(deps, req.respond, renderOperatorsChanged(c.op, r));
  return r.changed.length > 0 ? 'ok' : 'noop';
}
