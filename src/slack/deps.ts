/**
 * What every listener is given: built once in app.ts (the services and ports by src/app-services.ts), passed
 * to each `register(app, deps)`, and put on each request's Bolt context (slack/context.ts). No `Store`, no
 * `Config`: the ports of slack/ports.ts stand for them.
 */
import type { Notifier } from '../core/notifier.ts';
import type { DigestEngine } from '../digest/index.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Services } from '../services/index.ts';
import type { DirectoryCache } from './directory.ts';
import type { ActorFactory, InstalledTokens, SlackSettings } from './ports.ts';
import type { LiveStatus } from './queue-events/live.ts';
import type { StepCompleter } from './steps/completion.ts';
import type { Workspaces } from './workspace.ts';

/** The part of the digest service the `/mergequeue digest …` command uses. */
export type DigestCommands = Pick<DigestEngine, 'manage'>;

export interface SlackDeps {
  /** The application services, built once in the composition root. */
  services: Services;
  settings: SlackSettings;
  actors: ActorFactory;
  tokens: InstalledTokens;
  logger: Logger;
  metrics: Metrics;
  workspaces: Workspaces;
  directory: DirectoryCache;
  /** Undefined when the digest service is disabled. */
  digest: DigestCommands | undefined;
  now: () => number;
  /** The app's one Slack outbox: a notice a person's action leads to (a DM to someone else) goes through it. */
  outbox: Notifier;
  /** Live status messages; absent when the queue watcher is turned off. */
  liveStatus?: LiveStatus;
  /** Completes waiting Workflow Builder steps (wait_for_pr) once across replicas. */
  steps?: StepCompleter;
  /** Draws a new dashboard's canvas at once (src/workers/dashboards.ts); absent without the workers. */
  dashboards?: { refresh(dashboardId: string): Promise<void> };
}
