/**
 * What the Slack side is handed by the composition root (src/app-services.ts) instead of the whole `Store`
 * and `Config`: the few settings it reads, and narrow ports over what it keeps. No file of src/slack/ imports
 * src/store/ (test/production/request-context.test.ts says so).
 */
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
