/** The application services, one per feature, built once from the app's ports (src/app-services.ts). */

import { AutopilotService } from './autopilot.ts';
import { createDashboardService, type DashboardService } from './dashboard.ts';
import { createFreezeService, type FreezeService } from './freeze.ts';
import { createHomeService, type HomeService } from './home.ts';
import { PeopleService } from './people.ts';
import type { ServiceDeps } from './ports.ts';
import { PrService } from './prs.ts';
import { QueueService } from './queue.ts';
import { StatsService } from './stats.ts';
import { StepService } from './steps.ts';
import { StoryService } from './story.ts';
import { createTestFeedsService, type TestFeedsService } from './test-feeds.ts';
import { createTestsService, type TestsService } from './tests.ts';
import { UnfurlService } from './unfurls.ts';
import { createWatchService, type WatchService } from './watch.ts';
import { WorkspaceService } from './workspace.ts';

export type { Actor, ActorWorkspace, InstallKind, PeopleDirectory, PersonStanding } from './actor.ts';
export type {
  DeploymentDefaults,
  ServiceDeps,
  TrunkAccess,
  WebhookSecrets,
  WorkspaceTrunk,
} from './ports.ts';

export interface Services {
  queue: QueueService;
  prs: PrService;
  workspace: WorkspaceService;
  people: PeopleService;
  watch: WatchService;
  freeze: FreezeService;
  home: HomeService;
  tests: TestsService;
  story: StoryService;
  /** Flaky tests to their owners: `tests watch|unwatch|list` and the buttons on test status messages. */
  testFeeds: TestFeedsService;
  unfurls: UnfurlService;
  steps: StepService;
  /** A queue's dashboard canvas in a channel: `dashboard [target]`, `dashboard off [target]`. */
  dashboard: DashboardService;
  /** How a queue did over a window (`stats`), from its history. */
  stats: StatsService;
  /** The autopilot's settings (issue 29): `config autopilot …`. */
  autopilot: AutopilotService;
}

export function createServices(deps: ServiceDeps): Services {
  const queue = new QueueService(deps);
  return {
    queue,
    prs: new PrService(deps, queue),
    workspace: new WorkspaceService(deps),
    people: new PeopleService(deps),
    watch: createWatchService(deps, queue),
    freeze: createFreezeService(deps, queue),
    home: createHomeService(deps),
    tests: createTestsService(queue),
    story: new StoryService(deps, queue),
    testFeeds: createTestFeedsService({
      ...deps,
      webhooks: deps.webhooks ?? { hasWebhookSecret: async () => false },
    }),
    unfurls: new UnfurlService(deps),
    steps: new StepService(deps, queue),
    dashboard: createDashboardService(deps, queue),
    stats: new StatsService(deps),
    autopilot: new AutopilotService(deps, queue),
  };
}
