/**
 * What the digest needs from the Slack side, handed in rather than imported (the domain never imports
 * slack/): how its messages look, and what a refused post means. src/slack/digest-surface.ts implements it.
 */
import type { TrunkError } from '../trunk/errors.ts';
import type { Collection } from './collect.ts';
import type { DigestMessage, Subscription } from './types.ts';

/** What a renderer needs besides the subscription and what was collected. */
export interface RenderContext {
  appUrl: string;
  orgSlug: string;
  /** Lower-cased code owner → Slack mentions (`<@U…>`, `<!subteam^S…>`). */
  mentions: Map<string, string[]>;
  scheduledAt: number;
  late: boolean;
  manual: boolean;
}

/** Why a digest could not be made; the channel is told in one message instead. */
export type DigestProblem = { kind: 'no_trunk_token' } | { kind: 'trunk'; error: TrunkError };

export interface DigestSurface {
  /** The header message, then the thread replies. */
  renderDigest(sub: Subscription, c: Collection, ctx: RenderContext): DigestMessage[];
  /** One clear message in the channel when a digest cannot be made. */
  renderFailure(sub: Subscription, problem: DigestProblem, scheduledAt: number): DigestMessage;
  /** Why a post failed (Slack's error code), in a few words for the log and the run's outcome. */
  describePostFailure(code: string): string;
  /** The direct message to a digest's creator when Slack refused its digest for good. */
  renderCreatorNotice(sub: Pick<Subscription, 'id' | 'channelId'>, code: string): string;
  /** The same message without its charts, for when Slack refuses them (`invalid_blocks`); undefined: none. */
  withoutCharts?(message: DigestMessage): DigestMessage | undefined;
}
