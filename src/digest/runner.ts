/**
 * Carries one claimed occurrence to the end: collect (once; the rendered messages are saved in the
 * claim), then post the messages not yet recorded as posted, recording each as Slack accepts it.
 * A replica that takes over an expired claim calls the same function and continues where the row says.
 *
 * The one window left: Slack accepted a message and this process died before recording it (a few ms
 * between Slack's answer and the UPDATE). Slack's API has no idempotency key for chat.postMessage, so
 * that message would be posted again by the replica taking over; everything else is posted once.
 */
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { keepRenewed } from '../store/leases.ts';
import { isTrunkError } from '../trunk/errors.ts';
import type { ClaimRepository, RunPayload, RunRecord } from './claims.ts';
import {
  baselineOf,
  type Collection,
  type CollectOptions,
  collectFailingFrom,
  collectQuarantinedFrom,
  isEmpty,
  trunkFailingPages,
  trunkQuarantinedPages,
} from './collect.ts';
import type { DigestDeps } from './deps.ts';
import { postMessage, SlackPostError } from './post.ts';
import type { SubscriptionRepository } from './repository.ts';
import {
  CollectionAbandoned,
  type CollectionRepository,
  collectionSource,
  type SharedEnv,
  sharedPages,
  slimFailing,
  slimQuarantined,
} from './shared-collection.ts';
import { MAX_DIGEST_ATTEMPTS, retryDelayMs, tellCreator } from './slack-outage.ts';
import type { DigestMessage, RunOutcome, Subscription, WorkspaceTrunk } from './types.ts';

export interface RunnerContext {
  deps: DigestDeps;
  subs: SubscriptionRepository;
  claims: ClaimRepository;
  /** Pages shared by the digests of one repository, kind and minute (shared-collection.ts). */
  collections: CollectionRepository;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  leaseMs: number;
  graceMs: number;
  appUrl: string;
  /** Set when the service stops: no new message is started, the claim is left for another replica. */
  stopping: () => boolean;
}

class LostClaim extends Error {}

export async function runClaimed(ctx: RunnerContext, sub: Subscription, rec: RunRecord): Promise<RunOutcome> {
  const me = ctx.deps.replicaId;
  const key = { subscriptionId: rec.subscriptionId, scheduledAt: rec.scheduledAt };
  const log = ctx.logger.child({
    digest: sub.id,
    workspace: sub.workspaceId,
    scheduledAt: new Date(rec.scheduledAt).toISOString(),
    attempt: rec.attempts,
  });
  const heartbeat = keepRenewed(
    () => ctx.claims.heartbeat(key, me, ctx.now() + ctx.leaseMs),
    ctx.leaseMs / 3,
    (err) => log.warn({ err }, 'digest lease renewal failed'),
  );
  const check = (ok: boolean) => {
    if (!ok || heartbeat.lost) throw new LostClaim();
  };
  const abandoned = () => heartbeat.lost || ctx.stopping();
  try {
    let payload = rec.payload;
    if (!payload) {
      if (!rec.manual && rec.postedCount === 0 && ctx.now() - rec.scheduledAt > ctx.graceMs) {
        await ctx.claims.finish(
          key,
          me,
          'skipped',
          'skipped_late',
          ctx.now(),
          'taken over after the grace period',
        );
        ctx.metrics.digests.inc({ outcome: 'skipped_late' });
        log.warn('digest skipped: its claim was recovered after the grace period');
        return { outcome: 'skipped_late' };
      }
      payload = await build(ctx, sub, rec, abandoned);
      check(await ctx.claims.savePayload(key, me, payload, ctx.now() + ctx.leaseMs));
    }
    if (payload.failure === undefined && payload.empty && sub.skipEmpty) {
      check(await ctx.claims.finish(key, me, 'done', 'skipped_empty', ctx.now()));
      if (payload.baseline) await ctx.subs.setBaseline(sub.id, payload.baseline, rec.scheduledAt);
      ctx.metrics.digests.inc({ outcome: 'skipped_empty' });
      log.info('digest had nothing to report; not posted');
      return { outcome: 'skipped_empty' };
    }
    let headerTs = rec.headerTs;
    for (let i = rec.postedCount; i < payload.messages.length; i++) {
      if (ctx.stopping() || heartbeat.lost) throw new LostClaim();
      const target: { workspaceId: string; channel: string; threadTs?: string } = {
        workspaceId: sub.workspaceId,
        channel: sub.channelId,
      };
      if (i > 0 && headerTs) target.threadTs = headerTs;
      const ts = await postOrWithoutCharts(ctx, target, payload.messages[i]!);
      if (i === 0) headerTs = ts;
      check(await ctx.claims.recordPosted(key, me, headerTs ?? ts, i + 1, ctx.now() + ctx.leaseMs));
    }
    const failed = payload.failure !== undefined;
    check(
      await ctx.claims.finish(
        key,
        me,
        failed ? 'failed' : 'done',
        failed ? 'failed' : 'posted',
        ctx.now(),
        payload.failure,
      ),
    );
    if (payload.baseline) await ctx.subs.setBaseline(sub.id, payload.baseline, rec.scheduledAt);
    ctx.metrics.digests.inc({ outcome: failed ? 'failed' : 'posted' });
    if (failed) log.warn({ reason: payload.failure }, 'digest could not be made; the channel was told');
    else log.info({ messages: payload.messages.length }, 'digest posted');
    return failed
      ? { outcome: 'failed', detail: payload.failure ?? '', messages: payload.messages.length }
      : { outcome: 'posted', messages: payload.messages.length };
  } catch (err) {
    if (err instanceof LostClaim || err instanceof CollectionAbandoned) {
      if (ctx.stopping() && !heartbeat.lost) {
        // Shutting down: hand the claim over now instead of letting another replica wait out the lease
        // (after the last renewal, so that one cannot land after the release).
        await heartbeat.stop();
        await ctx.claims.heartbeat(key, me, ctx.now() - 1).catch(() => false);
      }
      log.warn('digest left unfinished (claim lost or service stopping); another replica continues it');
      return { outcome: 'lost_claim' };
    }
    if (err instanceof SlackPostError) {
      const now = ctx.now();
      const retryAt = now + retryDelayMs(rec.attempts);
      const mayRetry =
        !err.final && rec.attempts < MAX_DIGEST_ATTEMPTS && retryAt - rec.scheduledAt <= ctx.graceMs;
      if (mayRetry) {
        // Slack failing in passing: leave the claim (and what was posted) to be resumed after a backoff;
        // no late heartbeat may move the lease back.
        await heartbeat.stop();
        await ctx.claims
          .deferRetry(key, me, retryAt, `slack: ${err.code} (retrying)`)
          .catch((e: unknown) => log.warn({ err: e }, 'could not record the digest retry'));
        log.warn(
          { slackError: err.code, posted: rec.postedCount, retryAt: new Date(retryAt).toISOString() },
          'digest not posted yet: Slack failed; retrying after a backoff',
        );
        ctx.metrics.digests.inc({ outcome: 'retrying' });
        return { outcome: 'retrying', detail: ctx.deps.surface.describePostFailure(err.code) };
      }
      // Nothing more can reach this channel now; record it so no replica loops on it, and tell the
      // person who made the digest why and what to do.
      await ctx.claims.finish(key, me, 'failed', 'failed', now, `slack: ${err.code}`).catch(() => false);
      ctx.metrics.digests.inc({ outcome: 'failed' });
      const why = ctx.deps.surface.describePostFailure(err.code);
      log.warn({ slackError: err.code }, `digest not posted: ${why}`);
      await tellCreator(
        ctx.deps.notifier,
        sub,
        err.code,
        ctx.deps.surface.renderCreatorNotice(sub, err.code),
        log,
      );
      return { outcome: 'failed', detail: why };
    }
    // Database or unexpected trouble: leave the claim to expire so this or another replica retries.
    log.error({ err }, 'digest run failed; its claim will be retried after the lease expires');
    return { outcome: 'failed', detail: 'internal error' };
  } finally {
    await heartbeat.stop();
  }
}

/** Posts a message; one whose charts Slack refused (`invalid_blocks`) goes again without them. */
async function postOrWithoutCharts(
  ctx: RunnerContext,
  target: { workspaceId: string; channel: string; threadTs?: string },
  message: DigestMessage,
): Promise<string> {
  try {
    return await postMessage(ctx.deps.notifier, target, message);
  } catch (err) {
    const plain =
      err instanceof SlackPostError && err.code === 'invalid_blocks'
        ? ctx.deps.surface.withoutCharts?.(message)
        : undefined;
    if (!plain) throw err;
    return postMessage(ctx.deps.notifier, target, plain);
  }
}

/** Collects and renders; a Trunk problem becomes one clear message for the channel instead. */
async function build(
  ctx: RunnerContext,
  sub: Subscription,
  rec: RunRecord,
  abandoned: () => boolean,
): Promise<RunPayload> {
  if (sub.kind === 'health') return buildHealth(ctx, sub, rec);
  const trunk = await ctx.deps.trunkFor(sub.workspaceId);
  if (!trunk) {
    return {
      messages: [ctx.deps.surface.renderFailure(sub, { kind: 'no_trunk_token' }, rec.scheduledAt)],
      empty: false,
      failure: 'this workspace has no Trunk API token.',
    };
  }
  const baseline = await ctx.subs.baseline(sub.id);
  try {
    const opts: CollectOptions = {
      repo: sub.repo,
      topN: sub.topN,
      ...(baseline ? { baseline } : {}),
      ...(sub.owner ? { owner: sub.owner } : {}),
    };
    const collection = await collect(ctx, trunk, sub, rec, opts, abandoned);
    const mentions = await ctx.subs.mentions(sub.workspaceId);
    const messages = ctx.deps.surface.renderDigest(sub, collection, {
      appUrl: ctx.appUrl,
      orgSlug: trunk.orgSlug,
      mentions,
      scheduledAt: rec.scheduledAt,
      late: rec.late,
      manual: rec.manual,
    });
    const payload: RunPayload = { messages, empty: isEmpty(collection) };
    // A manual run ("digest run") is for trying things out: the scheduled digests keep comparing with
    // the previous scheduled one.
    if (!rec.manual) payload.baseline = baselineOf(collection);
    return payload;
  } catch (err) {
    if (!isTrunkError(err)) throw err;
    ctx.logger.warn(
      { digest: sub.id, workspace: sub.workspaceId, trunkError: err.kind, status: err.status },
      'Trunk failed while collecting a digest',
    );
    return {
      messages: [ctx.deps.surface.renderFailure(sub, { kind: 'trunk', error: err }, rec.scheduledAt)],
      empty: false,
      failure: err.userMessage,
    };
  }
}

/** `weekly`: the 7 days before the occurrence; otherwise the day before it. */
export function healthWindow(
  sub: Pick<Subscription, 'days'>,
  scheduledAt: number,
): { from: number; to: number } {
  const days = sub.days === 'weekly' ? 7 : 1;
  return { from: scheduledAt - days * 24 * 3_600_000, to: scheduledAt };
}

/** A health digest reads the queue's history in the store, not Trunk. */
async function buildHealth(ctx: RunnerContext, sub: Subscription, rec: RunRecord): Promise<RunPayload> {
  const health = ctx.deps.health;
  if (!health) throw new Error('health digests are not available in this process');
  const r = await health.report(sub, healthWindow(sub, rec.scheduledAt), {
    scheduledAt: rec.scheduledAt,
    late: rec.late,
    manual: rec.manual,
  });
  return { messages: r.messages, empty: r.empty };
}

/**
 * A scheduled digest reads the pages its repository, kind and minute share with every other digest due
 * then (one pagination for all, across replicas); a manual run ("digest run") paginates on its own, fresh.
 */
function collect(
  ctx: RunnerContext,
  trunk: WorkspaceTrunk,
  sub: Subscription,
  rec: RunRecord,
  opts: CollectOptions,
  abandoned: () => boolean,
): Promise<Collection> {
  const env: SharedEnv = {
    collections: ctx.collections,
    owner: ctx.deps.replicaId,
    now: ctx.now,
    leaseMs: ctx.leaseMs,
    abandoned,
    logger: ctx.logger.child({
      digest: sub.id,
      collection: `${sub.kind} ${sub.repo.owner}/${sub.repo.name} ${new Date(rec.scheduledAt).toISOString()}`,
    }),
  };
  const key = {
    workspaceId: sub.workspaceId,
    kind: sub.kind,
    source: collectionSource(trunk.orgSlug, sub.repo),
    scheduledAt: rec.scheduledAt,
  };
  if (sub.kind === 'failing') {
    const fetch = () => trunkFailingPages(trunk, rec.scheduledAt, sub.repo);
    const pages = rec.manual ? fetch() : sharedPages(env, key, fetch, slimFailing);
    return collectFailingFrom(pages, rec.scheduledAt, opts);
  }
  const fetch = () => trunkQuarantinedPages(trunk, sub.repo);
  const pages = rec.manual ? fetch() : sharedPages(env, key, fetch, slimQuarantined);
  return collectQuarantinedFrom(pages, opts);
}
