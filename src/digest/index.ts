/** Scheduled digests of failing and quarantined tests: the public face of digest/. */
export { DIGEST_HELP, parseDigestCommand } from '../slack/commands/digest.ts';
export type { DigestCommandContext, DigestService } from './service.ts';
export { createDigestService } from './service.ts';
export type { DigestDeps, RunOutcome, SlackPoster, Subscription, WorkspaceTrunk } from './types.ts';
