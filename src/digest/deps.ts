/** What the digest service is built from: the app's store, Trunk and Slack access, and its settings. */

import type { Notifier } from '../core/notifier.ts';
import type { TargetSpec } from '../core/target.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';
import type { DigestSurface } from './surface.ts';
import type { DigestMessage, Subscription, WorkspaceTrunk } from './types.ts';

export interface DigestDeps {
  store: Pick<Store, 'db' | 'leases' | 'getChannelDefault' | 'getWorkspace'>;
  /** undefined when the workspace has no Trunk credentials yet. */
  trunkFor(workspaceId: string): Promise<WorkspaceTrunk | undefined> | WorkspaceTrunk | undefined;
  /** Where messages go: the Slack outbox (paced per channel with everything else the app posts). */
  notifier: Notifier;
  /** Renders messages and reads Slack's errors; from the Slack side (src/slack/digest-surface.ts). */
  surface: DigestSurface;
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
  /** Health digests' reports (the queue history's figures, rendered by the Slack side); absent: none can run. */
  health?: HealthReports;
}

/** What a health digest posts for one occurrence: the queue's figures over its window, beside the one before. */
export interface HealthReports {
  report(
    sub: Subscription,
    window: { from: number; to: number },
    ctx: { scheduledAt: number; late: boolean; manual: boolean },
  ): Promise<{ messages: DigestMessage[]; empty: boolean }>;
}
