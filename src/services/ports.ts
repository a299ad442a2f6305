/**
 * What the application services are given by the composition root (src/app-services.ts builds them from the
 * app's deps): the store, the workspace's Trunk access, the deployment's defaults. Ports, so no service
 * imports Slack; the Slack side implements them (slack/workspace.ts's Workspaces fits TrunkAccess as is).
 */
import type { TargetSpec } from '../core/target.ts';
import type { Logger } from '../observability/log.ts';
import type { V2Workspace } from '../queue/trunk-v2-access.ts';
import type { Store } from '../store/types.ts';
import type { TrunkApi, WorkspaceTrunk } from '../trunk/api.ts';
import type { TrunkCaller } from '../trunk/budget.ts';
import type { TrunkV2Api } from '../trunk/v2/client.ts';

export type { WorkspaceTrunk };

/** Per-workspace Trunk access (slack/workspace.ts). */
export interface TrunkAccess {
  /** Trunk for a command or click; undefined when the workspace has no credentials. */
  trunkFor(workspaceId: string): Promise<WorkspaceTrunk | undefined>;
  /** Trunk for what a person only looks at (the Home, listings): reads through the process's short cache. */
  readsFor(workspaceId: string): Promise<WorkspaceTrunk | undefined>;
  /** The workspace's Trunk v2 reader, for `caller`; undefined when it has no v2 key (v1 answers then). */
  v2For(workspaceId: string, caller: TrunkCaller): Promise<V2Workspace | undefined>;
  /** A v2 client for a key that is not stored yet (the connect form checks it first). */
  v2WithKey(key: string): TrunkV2Api;
  /** A client for a token that is not stored yet (the connect form checks it first). */
  trunkWithToken(token: string, orgSlug?: string): TrunkApi;
  /** Forget a workspace's cached client (its credentials changed). */
  invalidate(workspaceId: string): void;
}

/** What the deployment itself says (environment), which counts as the workspace's own in single mode. */
export interface DeploymentDefaults {
  /** DEFAULT_REPO. */
  defaultTarget: TargetSpec | undefined;
  /** single / oauth / sandbox. */
  mode: 'single' | 'oauth' | 'sandbox';
  /** TRUNK_API_TOKEN is set (single-workspace mode counts it as the workspace's connection). */
  hasEnvTrunkToken: boolean;
  /** TRUNK_ORG_SLUG. */
  envOrgSlug: string | undefined;
  /** An ENCRYPTION_KEY is configured, so a Trunk token can be stored. */
  canStoreSecrets: boolean;
  /** AUDIT_RETENTION_DAYS: how long audit entries are kept. */
  auditRetentionDays: number;
  /** TRUNK_APP_URL: whose links unfurl (services/unfurls.ts); default https://app.trunk.io. */
  trunkAppUrl?: string;
}

/** The seam to where Trunk webhook signing secrets are kept (src/webhooks/ stores them). */
export interface WebhookSecrets {
  /**
   * Whether a Trunk webhook signing secret is configured for the workspace (stored with `connect`, or
   * TRUNK_WEBHOOK_SECRET in single-workspace mode), so Trunk's deliveries can be verified.
   */
  hasWebhookSecret(workspaceId: string): Promise<boolean>;
}

export interface ServiceDeps {
  store: Store;
  trunk: TrunkAccess;
  /** Read at each call (the configuration is fixed in production; tests may change it). */
  defaults: () => DeploymentDefaults;
  logger: Logger;
  /** Whether Trunk's webhooks can be verified for a workspace; default: no secret anywhere. */
  webhooks?: WebhookSecrets;
}
