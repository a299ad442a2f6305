/**
 * The workspace feature: its configuration (channel and workspace default queues, operators) and its
 * connection to Trunk. Anyone may read the configuration; only operators change it or connect, checked here,
 * every refusal and change audited here. The stored shapes are workspace/config.ts's, which writes no audit.
 */
import { DEFAULT_HOST, type QueueRef, resolveTarget, type TargetSpec } from '../core/target.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { isTrunkError, type TrunkError } from '../trunk/errors.ts';
import { webhookPath } from '../webhooks/endpoint.ts';
import {
  type ConfigContext,
  type ConfigView,
  type ConnectInput,
  changeOperators,
  connectTrunk,
  type OperatorsChange,
  type Principal,
  readConfig,
  setChannelDefault,
  setWorkspaceDefault,
} from '../workspace/config.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';

/** Only operators change the configuration; the refusal names why (audited). */
export type NotOperator = { answer: 'refused'; because: string };

export type ConfigAnswer =
  | NotOperator
  | { answer: 'default_changed'; scope: 'channel' | 'workspace'; target: TargetSpec | null }
  | { answer: 'operators_changed'; op: 'add' | 'remove'; change: OperatorsChange };

/** Whether the person may open the connect form. */
export type ConnectGate = NotOperator | { answer: 'no_encryption_key' } | { answer: 'allowed' };

/** What a connect form submission did. */
export type ConnectAnswer =
  | NotOperator
  | { answer: 'no_encryption_key' }
  /** Trunk rejected the token (401/403). */
  | { answer: 'token_rejected' }
  /** Trunk could not check it (down, slow, refused for another reason). */
  | { answer: 'token_unchecked'; error: TrunkError }
  /** The check failed on our side. */
  | { answer: 'check_failed' }
  /** Trunk rejected the v2 key (401), or could not check it. */
  | { answer: 'v2_key_rejected' }
  | { answer: 'v2_key_unchecked'; error: TrunkError }
  | { answer: 'save_failed' }
  | {
      answer: 'connected';
      orgSlug: string;
      defaultTarget: TargetSpec | undefined;
      /** What happened to the v2 key: stored (new or replaced), removed, or left as it was. */
      v2Key: 'stored' | 'removed' | 'kept';
      /** Trunk's webhooks: the endpoint's path for this workspace, and what happened to its secrets. */
      webhooks: { path: string; secrets: 'stored' | 'removed' | 'kept' };
    };

/**
 * A deadline the caller must answer within (a view submission has 3 s): work is raced against it and
 * abandoned when it overruns (slack/answer-budget.ts implements it; OutOfTime propagates to the caller).
 */
export interface Deadline {
  left(reserveMs?: number): number;
  within<T>(work: Promise<T>, reserveMs?: number): Promise<T>;
}

/** The workspace's stored connection, as the connect form shows it. */
export interface StoredConnection {
  orgSlug?: string;
  defaultTarget?: TargetSpec;
  hasToken: boolean;
  hasV2Key: boolean;
  hasWebhookSecrets: boolean;
}

/** The token check must finish well inside the 3 s Slack gives a view submission. */
const VERIFY_DEADLINE_MS = 2_000;

export class WorkspaceService {
  readonly #deps: ServiceDeps;

  constructor(deps: ServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Slack says the app was uninstalled (app_uninstalled): the workspace's tokens, Trunk credentials, defaults,
   * operators, digests and feeds go; the audit log stays. No person asks, so there is no actor.
   */
  async uninstalled(workspaceId: string): Promise<void> {
    await this.#deps.store.deleteWorkspace(workspaceId);
    this.#deps.trunk.invalidate(workspaceId);
    this.#deps.logger.info({ workspaceId, why: 'app_uninstalled' }, 'workspace data deleted');
  }

  /** What the connect form shows as already stored (never a secret itself); the caller was let in by mayConnect. */
  async connectionOf(workspaceId: string): Promise<StoredConnection> {
    const ws = await this.#deps.store.getWorkspace(workspaceId);
    return {
      ...(ws?.trunkOrgSlug ? { orgSlug: ws.trunkOrgSlug } : {}),
      ...(ws?.defaultTarget ? { defaultTarget: ws.defaultTarget } : {}),
      hasToken: ws?.hasTrunkCredentials ?? false,
      hasV2Key: ws?.hasTrunkV2Key ?? false,
      hasWebhookSecrets: ws?.hasTrunkWebhookSecrets ?? false,
    };
  }

  /** The configuration as the channel sees it (anyone may read). */
  async show(actor: Actor, channelId: string | undefined): Promise<ConfigView> {
    const view = await readConfig(this.context(actor), channelId);
    const env = this.#deps.defaults();
    // DEFAULT_REPO and TRUNK_API_TOKEN count as the workspace's own in single-workspace mode.
    if (!view.workspaceDefault && env.defaultTarget) view.workspaceDefault = env.defaultTarget;
    if (!view.hasTrunkCredentials && env.mode !== 'oauth' && env.hasEnvTrunkToken) {
      view.hasTrunkCredentials = true;
      if (env.envOrgSlug) view.trunkOrgSlug = env.envOrgSlug;
    }
    return view;
  }

  async setChannelDefault(actor: Actor, channelId: string, target: TargetSpec | null): Promise<ConfigAnswer> {
    const refused = await this.refuseUnlessOperator(actor, 'config.channel');
    if (refused) return refused;
    await setChannelDefault(this.context(actor), channelId, target);
    await actor.audit('config.channel', '', 'ok', { channelId, target: target ?? null });
    return { answer: 'default_changed', scope: 'channel', target };
  }

  async setWorkspaceDefault(actor: Actor, target: TargetSpec | null): Promise<ConfigAnswer> {
    const refused = await this.refuseUnlessOperator(actor, 'config.workspace');
    if (refused) return refused;
    await setWorkspaceDefault(this.context(actor), target);
    await actor.audit('config.workspace', '', 'ok', { target: target ?? null });
    return { answer: 'default_changed', scope: 'workspace', target };
  }

  async changeOperators(actor: Actor, op: 'add' | 'remove', principals: Principal[]): Promise<ConfigAnswer> {
    const refused = await this.refuseUnlessOperator(actor, 'config.operators');
    if (refused) return refused;
    const change = await changeOperators(this.context(actor), op, principals);
    await actor.audit(`config.operators.${op}`, '', change.changed.length > 0 ? 'ok' : 'noop', {
      changed: change.changed,
      unchanged: change.unchanged,
      unresolved: change.unresolved,
    });
    return { answer: 'operators_changed', op, change };
  }

  /** Before the connect form opens: operators only, and the deployment must be able to store a token. */
  async mayConnect(actor: Actor): Promise<ConnectGate> {
    const refused = await this.refuseUnlessOperator(actor, 'connect');
    if (refused) return refused;
    if (!this.#deps.defaults().canStoreSecrets) return { answer: 'no_encryption_key' };
    return { answer: 'allowed' };
  }

  /**
   * The connect form submitted: checked again (operator, encryption key), the token tried with one read
   * call, then stored. Everything runs within `deadline`, keeping `reserveMs` for storing and answering.
   */
  async connect(
    actor: Actor,
    input: ConnectInput,
    deadline: Deadline,
    reserveMs: number,
  ): Promise<ConnectAnswer> {
    const decision = await deadline.within(actor.operator(), reserveMs);
    if (!decision.allowed) {
      // A form kept open after losing the right, or one forged: refused and audited like the command.
      await actor.audit('connect', '', 'refused', { because: decision.because, via: 'form' });
      return { answer: 'refused', because: decision.because };
    }
    if (!this.#deps.defaults().canStoreSecrets) return { answer: 'no_encryption_key' };
    const { store, trunk } = this.#deps;
    const workspaceId = actor.workspace.id;
    const ws = await deadline.within(store.getWorkspace(workspaceId), reserveMs);
    const ref = resolveTarget(input.defaultTarget, ws?.defaultTarget, this.#deps.defaults().defaultTarget);
    try {
      const api = trunk.trunkWithToken(input.token, input.orgSlug);
      await deadline.within(verifyToken(api, ref, input.orgSlug, deadline.left(reserveMs)), reserveMs);
    } catch (err) {
      // Trunk checks the token before it looks for the repository: "not found" still proves the token works.
      if (isTrunkError(err)) {
        if (err.kind === 'auth') return { answer: 'token_rejected' };
        if (err.kind !== 'not_found') return { answer: 'token_unchecked', error: err };
      } else if (isOutOfTime(err)) {
        throw err;
      } else {
        return { answer: 'check_failed' };
      }
    }
    if (typeof input.v2Key === 'string') {
      // One v2 read with the new key: Trunk answers 401 to a key it does not know; any other answer (a
      // repository it does not have, a missing permission) proves the key works.
      try {
        const url = ref?.repo
          ? `https://${ref.repo.host}/${ref.repo.owner}/${ref.repo.name}`
          : 'https://github.com/';
        await deadline.within(
          trunk.v2WithKey(input.v2Key).findRepository(url, { deadlineMs: deadline.left(reserveMs) }),
          reserveMs,
        );
      } catch (err) {
        if (isTrunkError(err)) {
          if (err.kind === 'auth' && err.code !== 'INSUFFICIENT_PERMISSIONS')
            return { answer: 'v2_key_rejected' };
          if (err.kind !== 'not_found' && err.kind !== 'auth')
            return { answer: 'v2_key_unchecked', error: err };
        } else if (isOutOfTime(err)) {
          throw err;
        } else {
          return { answer: 'check_failed' };
        }
      }
    }
    const result = await connectTrunk(this.context(actor), input);
    await actor.audit(
      'connect',
      '',
      result.ok ? 'ok' : 'failed',
      result.ok
        ? { orgSlug: input.orgSlug, defaultTarget: input.defaultTarget ?? null }
        : { orgSlug: input.orgSlug, error: 'auth' },
    );
    let v2Key: 'stored' | 'removed' | 'kept' = 'kept';
    if (result.ok && input.v2Key !== undefined) {
      await store.setTrunkV2Key(workspaceId, input.v2Key ?? undefined, actor.userId);
      v2Key = input.v2Key === null ? 'removed' : 'stored';
      await actor.audit('connect.v2_key', '', 'ok', { v2Key });
    }
    let secrets: 'stored' | 'removed' | 'kept' = 'kept';
    if (result.ok && input.webhookSecrets !== undefined) {
      await store.setTrunkWebhookSecrets(workspaceId, input.webhookSecrets ?? [], actor.userId);
      secrets = input.webhookSecrets === null ? 'removed' : 'stored';
      await actor.audit('connect.webhook_secrets', '', 'ok', {
        secrets,
        count: input.webhookSecrets?.length ?? 0,
      });
    }
    trunk.invalidate(workspaceId);
    if (!result.ok) return { answer: 'save_failed' };
    return {
      answer: 'connected',
      orgSlug: input.orgSlug,
      defaultTarget: input.defaultTarget,
      v2Key,
      webhooks: { path: webhookPath(workspaceId), secrets },
    };
  }

  private async refuseUnlessOperator(actor: Actor, action: string): Promise<NotOperator | undefined> {
    const decision = await actor.operator();
    if (decision.allowed) return undefined;
    await actor.audit(action, '', 'refused', { because: decision.because });
    return { answer: 'refused', because: decision.because };
  }

  private context(actor: Actor): ConfigContext {
    return { store: this.#deps.store, workspaceId: actor.workspace.id, userId: actor.userId };
  }
}

/** The deadline's own error (slack/answer-budget.ts's OutOfTime), told apart without importing Slack. */
function isOutOfTime(err: unknown): boolean {
  return err instanceof Error && err.name === 'OutOfTime';
}

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
