/**
 * Queue events in Slack: how the watcher's events reach channels, live status messages and authors
 * (deliver.ts, through the app's one Slack outbox), the live status messages people ask for, and their
 * expiry. The watcher that produces the events, and the loop that expires live messages, run as a worker
 * (src/workers/queue-watcher.ts), which also builds the rows this side reads and writes (live messages,
 * watches) and hands them in: the Slack side opens no store.
 */
import type { Logger } from '../../observability/log.ts';
import type { DeliverBatch, Departures, LiveMessageRepository, WatchRepository } from '../../watch/index.ts';
import type { SlackOutbox } from '../outbox/outbox.ts';
import type { StepCompleter } from '../steps/completion.ts';
import type { Workspaces } from '../workspace.ts';
import {
  createDepartures,
  createSlackDeliver,
  type DeliverDeps,
  type KickPorts,
  StoryReads,
} from './deliver.ts';
import { expireLive, type LiveStatus, liveStatus } from './live.ts';

export interface QueueEventDeliveryOptions {
  /** The two settings delivery reads (TRUNK_APP_URL, LIVE_STATUS_HOURS): the configuration fits as is. */
  config: { trunk: { appUrl: string }; watch: { liveStatusHours: number } };
  /** The live status messages' rows. */
  liveMessages: LiveMessageRepository;
  /** The watches (feeds), read for their destinations and paused when their channel is closed. */
  watches: WatchRepository;
  workspaces: Workspaces;
  /** Every write goes through it (the app's one outbox). */
  outbox: SlackOutbox;
  logger: Logger;
  now: () => number;
  /** Completes the Workflow Builder steps waiting for a PR that left (`step` destinations). */
  steps?: StepCompleter;
  /** Kick classes and the autopilot (issue 29; `autopilot` destinations). */
  kicks?: KickPorts;
}

export interface QueueEventDelivery {
  readonly deliverBatch: DeliverBatch;
  /** The watcher's port: what became of departed PRs, from one v2 history batch (reused by the delivery). */
  readonly departures: Departures;
  readonly live: LiveStatus;
  /** Ends the live status messages whose time is up; answers how many (0 when it failed, logged). */
  expire(): Promise<number>;
}

export function createQueueEventDelivery(o: QueueEventDeliveryOptions): QueueEventDelivery {
  const liveDeps: DeliverDeps = {
    repo: o.liveMessages,
    watches: o.watches,
    workspaces: o.workspaces,
    outbox: o.outbox,
    logger: o.logger,
    now: o.now,
    appUrl: o.config.trunk.appUrl,
    liveHours: o.config.watch.liveStatusHours,
    storyReads: new StoryReads(),
    ...(o.kicks ? { kicks: o.kicks } : {}),
  };
  const slackDeliver = createSlackDeliver(liveDeps);
  return {
    deliverBatch: o.steps ? withSteps(slackDeliver, o.steps) : slackDeliver,
    departures: createDepartures(liveDeps),
    live: liveStatus(liveDeps),
    expire: () =>
      expireLive(liveDeps).catch((err: unknown) => {
        o.logger.error({ err }, 'ending live status messages failed');
        return 0;
      }),
  };
}

/** `step` destinations go to the step completer; every other destination to the Slack delivery, as before. */
function withSteps(slackDeliver: DeliverBatch, steps: StepCompleter): DeliverBatch {
  return async (items, context) => {
    const forSlack = items.map((i) => ({
      event: i.event,
      destinations: i.destinations.filter((d) => d.kind !== 'step'),
    }));
    const sent = forSlack.filter((i) => i.destinations.length > 0);
    const [stepResults, slackResults] = await Promise.all([
      Promise.all(items.map((i) => steps.deliver(i.event, i.destinations))),
      sent.length > 0 ? slackDeliver(sent, context) : Promise.resolve([]),
    ]);
    return items.map((_, n) => {
      const k = sent.indexOf(forSlack[n]!);
      return [...(stepResults[n] ?? []), ...(k >= 0 ? (slackResults[k] ?? []) : [])];
    });
  };
}
