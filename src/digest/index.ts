/** Scheduled digests of failing and quarantined tests: the public face of digest/. */

export type { DigestDeps, HealthReports } from './deps.ts';
export { describeSchedule, repoLabel } from './describe.ts';
export type { DigestCommandContext, DigestEngine } from './engine.ts';
export { createDigestEngine } from './engine.ts';
export type { DigestAnswer, DigestManager, DigestRefusal } from './manage.ts';
export { DEFAULT_DAYS, DEFAULT_TIME, DEFAULT_TOP, MAX_PER_CHANNEL, MAX_TOP } from './manage.ts';
export { SubscriptionRepository } from './repository.ts';
export type { DigestProblem, DigestSurface, RenderContext } from './surface.ts';
export type {
  DigestMessage,
  DigestRequest,
  RunOutcome,
  Subscription,
  WorkspaceTrunk,
} from './types.ts';
