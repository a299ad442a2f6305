/** Plain data of the digest domain, shared by its modules. */
import type { KnownBlock } from '@slack/types';
import type { TargetSpec } from '../core/target.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import type { Repo } from '../trunk/types.ts';
import type { DaysRule } from './schedule.ts';

export type DigestKind = 'failing' | 'quarantined';

export interface Subscription {
  id: string;
  workspaceId: string;
  channelId: string;
  kind: DigestKind;
  repo: Repo;
  minuteOfDay: number;
  tz: string;
  days: DaysRule;
  skipEmpty: boolean;
  topN: number;
  createdBy: string;
  createdAt: number;
  /** The next occurrence nobody has dealt with yet (UTC ms). */
  nextDueAt: number;
}

/** What the next digest compares with: kept small whatever the repository's size. */
export interface Baseline {
  /** Bloom filter (base64) of the test ids seen by the last scheduled digest. */
  bloom: string;
  count: number;
  /** The tests that digest listed, to name the ones that recovered. */
  shown: Array<{ id: string; name: string; url?: string }>;
}

/** A Slack message as posted: the digest keeps them in the run record so a takeover posts the same. */
export interface DigestMessage {
  text: string;
  blocks: KnownBlock[];
}

/** The part of a Slack WebClient a digest needs (WebClient satisfies it). */
export interface SlackPoster {
  chat: {
    postMessage(args: {
      channel: string;
      text: string;
      blocks?: KnownBlock[];
      thread_ts?: string;
      unfurl_links?: boolean;
      unfurl_media?: boolean;
    }): Promise<{ ok?: boolean; ts?: string; error?: string }>;
  };
}

/** A workspace's Trunk access: the client for its token and its organization slug. */
export interface WorkspaceTrunk {
  api: TrunkApi;
  orgSlug: string;
}

export interface DigestDeps {
  store: Pick<Store, 'db' | 'getChannelDefault' | 'getWorkspace' | 'appendAudit'>;
  /** undefined when the workspace has no Trunk credentials yet. */
  trunkFor(workspaceId: string): Promise<WorkspaceTrunk | undefined> | WorkspaceTrunk | undefined;
  slackFor(workspaceId: string): Promise<SlackPoster> | SlackPoster;
  logger: Logger;
  metrics: Metrics;
  /** Epoch ms; defaults to Date.now (tests pass a controllable clock). */
  clock?: () => number;
  graceHours: number;
  /** Names this process in claims (e.g. hostname:pid). */
  replicaId: string;
  /** Trunk web app base for links, default https://app.trunk.io. */
  trunkAppUrl?: string;
  /** Workspace-wide default repo from DEFAULT_REPO, used after the channel's and workspace's. */
  defaultTarget?: TargetSpec;
  /** How long a claim stays owned without a heartbeat, default 60 s. */
  leaseMs?: number;
  /** Digests one replica runs at the same time, default 50 (most of a digest is waiting: Trunk pages, Slack pace). */
  concurrency?: number;
  /** Least time between two manual runs (`digest run`) of one digest, default 5 minutes. */
  manualRunCooldownMs?: number;
  /** node-cron expression of the ticker, default every minute (UTC). */
  tickCron?: string;
  /** Pause between two messages in one channel, default 1100 ms (Slack: about one per second). */
  channelPaceMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RunOutcome {
  /** retrying: Slack failed in passing; the claim is left to be taken over after a backoff. */
  outcome: 'posted' | 'skipped_empty' | 'skipped_late' | 'failed' | 'lost_claim' | 'retrying';
  detail?: string;
  messages?: number;
}
