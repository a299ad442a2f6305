/**
 * What the Slack side is handed by the composition root (src/app-services.ts) instead of the whole `Store`
 * and `Config`: the few settings it reads, and narrow ports over what it keeps. No file of src/slack/ imports
 * src/store/ (test/production/request-context.test.ts says so).
 */
import type { InstallationRecord } from '../core/installation.ts';
import type { CheckOperatorOptions } from '../queue/permissions.ts';
import type { Actor, ActorWorkspace, PeopleDirectory } from '../services/actor.ts';

/** The parts of the configuration a listener reads. */
export interface SlackSettings {
  /** How the app is installed: one workspace (SLACK_BOT_TOKEN) or many (OAuth). */
  mode: 'single' | 'oauth';
  /** SLACK_API_URL: a response_url carried in a modal may point there (the fake) or at hooks.slack.com. */
  apiUrl: string;
  /** TRUNK_APP_URL: where links to Trunk's web app point. */
  trunkAppUrl: string;
}

/** Builds a request's Actor: the store and the audit-lost sink are bound by the composition root. */
export type ActorFactory = (o: {
  workspace: ActorWorkspace;
  userId: string;
  payloadTeamId?: string | undefined;
  directory: PeopleDirectory;
}) => Actor;

/** What tokens_revoked forgets (slack/revocation.ts). */
export interface InstalledTokens {
  /** Our bot user in an OAuth-installed workspace. */
  botUserId(workspaceId: string): Promise<string | undefined>;
  /** Forgets the named users' user tokens; how many were held. */
  revokeUserTokens(workspaceId: string, userIds: readonly string[]): Promise<number>;
  /** Forgets the bot token and what only works with it (digests). */
  deleteBotData(workspaceId: string): Promise<void>;
}

/** Slack installations as the store keeps them (OAuth mode): what Bolt's installation store reads and writes. */
export interface InstallationRecords {
  /** Replaces the workspace's installation; records its installer (an operator by right) only if none is. */
  save(record: InstallationRecord): Promise<void>;
  load(workspaceId: string): Promise<InstallationRecord | undefined>;
  /** Removes the bot and user tokens of that team or enterprise. */
  delete(workspaceId: string): Promise<void>;
}

/** One line of the audit log, as the Slack side writes it (an installer change, a refused request). */
export interface AuditLine {
  workspaceId: string;
  userId: string;
  action: string;
  target: string;
  outcome: 'ok' | 'refused' | 'failed' | 'noop';
  detail: Record<string, unknown>;
  at: number;
}

/**
 * What Bolt's OAuth installation store needs (slack/installer-rights.ts): the installation records, who the
 * installer is, and the operator rule's reads (queue/permissions.ts) for a re-install that would move it.
 */
export interface InstallationKeeping
  extends Pick<CheckOperatorOptions['store'], 'listOperators' | 'getWorkspace'> {
  readonly installations: InstallationRecords;
  setInstaller(workspaceId: string, userId: string): Promise<void>;
  appendAudit(entry: Omit<AuditLine, 'at'> & { at?: number }): Promise<unknown>;
}

/** A key claimed once across replicas for a while (the replay guard's signatures, an event retry). */
export interface OnceClaims {
  /** True for the first claim of `key` within `ttlMs`; false when it was already claimed. */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
}

/** A workspace's stored Trunk credentials (slack/workspace.ts builds its clients from them). */
export interface TrunkKeys {
  getTrunkCredentials(workspaceId: string): Promise<{ token: string; orgSlug: string } | undefined>;
  getTrunkV2Key(workspaceId: string): Promise<string | undefined>;
}
