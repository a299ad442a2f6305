/** Queue events: watches, live messages, people links and the watcher loop. The public face of watch/. */
export { diffSnapshots, ourChangesFromAudit, resolveDeparted, toSnapshot } from './diff.ts';
export { LiveMessageRepository, WatchRepository } from './feeds.ts';
export {
  type FollowedQueue,
  listFollowedQueues,
  listWorkspaceQueues,
  type QueueSource,
  type WorkspaceQueue,
} from './followed.ts';
export { evaluateHealth, type HealthRecord, type HealthThresholds } from './health.ts';
export { type LinkResult, PeopleRepository } from './people.ts';
export { createWatchPoll, type WatchPoll, type WatchPollDeps } from './poll.ts';
export { judgeSlow, type MergedStays, type SlowFigures, type StayInQueue } from './slow.ts';
export { evaluateSlow, type SlowQueue, SlowStateRepository } from './slow-state.ts';
export {
  AUTOPILOT_SUBMITTER,
  type PrSubmitter,
  SubmitterRepository,
  type SubmitVia,
} from './submitters.ts';
export * from './types.ts';
export {
  leftStateOf,
  NOT_IN_QUEUE,
  type StepCompletion,
  type StepOutcome,
  type StepSendResult,
  type StepWait,
  StepWaitRepository,
} from './waits.ts';
export { Watcher, type WatcherOptions, type WatchTrunk } from './watcher.ts';
