/**
 * A workspace's configuration, independent of Slack: its default queues (workspace-wide and per channel),
 * its operators, and its connection to Trunk. Plain results; the audit entry of every change is written
 * by the application layer (services/workspace.ts), not here.
 */

import type { TargetSpec } from '../core/target.ts';
import type { Operator, Store } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { isTrunkError, type TrunkError } from '../trunk/errors.ts';

/** Someone named in `config operators add|remove`. `name` is an unescaped `@name` to be looked up. */
export type Principal =
  | { kind: 'user'; id: string; label?: string }
  | { kind: 'usergroup'; id: string; label?: string }
  | { kind: 'name'; name: string };

/** Resolves a bare `@name` typed without Slack's mention escaping (the Slack directory implements it). */
export interface NameLookup {
  findByName?(name: string): Promise<{ kind: Operator['kind']; id: string } | undefined>;
}

export interface ConfigContext {
  /** The workspace's configuration rows (never the audit: its entries are the caller's to write). */
  store: Pick<
    Store,
    | 'getWorkspace'
    | 'getChannelDefault'
    | 'listOperators'
    | 'getUnfurlGithub'
    | 'setChannelDefault'
    | 'setWorkspaceDefaultTarget'
    | 'addOperator'
    | 'removeOperator'
    | 'setTrunkCredentials'
  >;
  workspaceId: string;
  /** The Slack user acting. */
  userId: string;
}

export interface ConfigView {
  channelDefault?: TargetSpec;
  workspaceDefault?: TargetSpec;
  operators: Operator[];
  installerUserId?: string;
  hasTrunkCredentials: boolean;
  trunkOrgSlug?: string;
  /** Whether pasted GitHub PR links unfurl (`config unfurl github on|off`). */
  unfurlGithub?: boolean;
}

export async function readConfig(ctx: ConfigContext, channelId: string | undefined): Promise<ConfigView> {
  const [ws, channelDefault, operators, unfurlGithub] = await Promise.all([
    ctx.store.getWorkspace(ctx.workspaceId),
    channelId ? ctx.store.getChannelDefault(ctx.workspaceId, channelId) : Promise.resolve(undefined),
    ctx.store.listOperators(ctx.workspaceId),
    ctx.store.getUnfurlGithub(ctx.workspaceId),
  ]);
  const view: ConfigView = {
    operators,
    hasTrunkCredentials: ws?.hasTrunkCredentials ?? false,
    unfurlGithub,
  };
  if (channelDefault) view.channelDefault = channelDefault;
  if (ws?.defaultTarget) view.workspaceDefault = ws.defaultTarget;
  if (ws?.installerUserId) view.installerUserId = ws.installerUserId;
  if (ws?.trunkOrgSlug) view.trunkOrgSlug = ws.trunkOrgSlug;
  return view;
}

export async function setChannelDefault(
  ctx: ConfigContext,
  channelId: string,
  target: TargetSpec | null,
): Promise<void> {
  await ctx.store.setChannelDefault(ctx.workspaceId, channelId, target ?? undefined, ctx.userId);
}

export async function setWorkspaceDefault(ctx: ConfigContext, target: TargetSpec | null): Promise<void> {
  await ctx.store.setWorkspaceDefaultTarget(ctx.workspaceId, target ?? undefined, ctx.userId);
}

export interface OperatorsChange {
  /** Principals that changed (added or removed). */
  changed: Array<{ kind: Operator['kind']; id: string }>;
  /** Already present (add) or not present (remove). */
  unchanged: Array<{ kind: Operator['kind']; id: string }>;
  /** Bare `@names` that could not be resolved to a user or group. */
  unresolved: string[];
}

export async function changeOperators(
  ctx: ConfigContext,
  op: 'add' | 'remove',
  principals: Principal[],
  directory?: NameLookup,
): Promise<OperatorsChange> {
  const result: OperatorsChange = { changed: [], unchanged: [], unresolved: [] };
  for (const p of principals) {
    let who: { kind: Operator['kind']; id: string } | undefined;
    if (p.kind === 'name') {
      who = directory?.findByName ? await directory.findByName(p.name) : undefined;
      if (!who) {
        result.unresolved.push(p.name);
        continue;
      }
    } else {
      who = { kind: p.kind, id: p.id };
    }
    const did =
      op === 'add'
        ? await ctx.store.addOperator(ctx.workspaceId, { kind: who.kind, id: who.id, addedBy: ctx.userId })
        : await ctx.store.removeOperator(ctx.workspaceId, who.kind, who.id);
    (did ? result.changed : result.unchanged).push(who);
  }
  return result;
}

export interface ConnectInput {
  token: string;
  orgSlug: string;
  defaultTarget?: TargetSpec;
  /** A Trunk v2 API key to store (a string), to remove (null), or left as it is (undefined). */
  v2Key?: string | null;
  /** Trunk webhook signing secrets to store (replacing the list), to remove (null), or left (undefined). */
  webhookSecrets?: string[] | null;
}

export type ConnectResult = { ok: true } | { ok: false; error: TrunkError; field: 'token' | 'defaultRepo' };

/**
 * Stores this workspace's Trunk token and org slug. With a default repository and `verifyWith`, the token is
 * first tried against that queue, so a wrong token is caught in the form rather than at the next command.
 */
export async function connectTrunk(
  ctx: ConfigContext,
  input: ConnectInput,
  verifyWith?: (token: string) => TrunkApi,
): Promise<ConnectResult> {
  const repo = input.defaultTarget?.repo;
  if (repo && verifyWith) {
    try {
      await verifyWith(input.token).getQueue({ repo, targetBranch: input.defaultTarget?.branch ?? 'main' });
    } catch (error) {
      // A queue that does not exist yet still proves the token works; only auth failures block saving.
      if (isTrunkError(error) && error.kind === 'auth') return { ok: false, error, field: 'token' };
    }
  }
  await ctx.store.setTrunkCredentials(
    ctx.workspaceId,
    { token: input.token, orgSlug: input.orgSlug },
    ctx.userId,
  );
  if (input.defaultTarget)
    await ctx.store.setWorkspaceDefaultTarget(ctx.workspaceId, input.defaultTarget, ctx.userId);
  return { ok: true };
}
