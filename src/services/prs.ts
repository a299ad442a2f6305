/**
 * The PR feature: submit, cancel and restart one PR (typed or clicked), and list a queue's PRs. Who may act
 * is decided by the PR domain (queue/pull-requests.ts: an operator, or the PR's author through a link an
 * operator made) from what this service reads for it: the person's operator standing (the actor) and who
 * holds the PR's GitHub login here (the people links). The domain returns plain outcomes; this service
 * claims a clicked button once and writes the audit row of every attempt (change, no-op, refusal, failure).
 */
import {
  changePullRequest,
  type ListOptions,
  listQueuePullRequests,
  type PrActor,
  type PrChangeRequest,
  type PrChangeResult,
  type PrListing,
  type PrPreview,
  previewPullRequestChange,
  prTarget,
} from '../queue/pull-requests.ts';
import { PeopleRepository, queueKeyOf, SubmitterRepository } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import {
  claimClick,
  failureDetail,
  type QueueAt,
  QueueService,
  type ReadAnswer,
  releaseClick,
} from './queue.ts';
import { LISTING_DEADLINE_MS } from './tests.ts';

export class PrService {
  readonly #deps: ServiceDeps;
  readonly #queue: QueueService;

  constructor(deps: ServiceDeps, queue = new QueueService(deps)) {
    this.#deps = deps;
    this.#queue = queue;
  }

  /** Acts on the PR's current state if the person may (refusals, no-ops and failures audited). */
  async change(actor: Actor, at: QueueAt, req: Omit<PrChangeRequest, 'ref'>): Promise<PrChangeResult> {
    const full: PrChangeRequest = { ...req, ref: at.ref };
    const asked = requestDetail(full);
    const as = this.#queue.changer(actor, at.trunk);
    if (req.clickKey && !(await claimClick(as, req.clickKey))) {
      const target = prTarget(full);
      await actor.audit(req.action, target, 'noop', { ...asked, why: 'repeated click' });
      return { outcome: 'noop', action: req.action, target, reason: 'That click was already handled.' };
    }
    const r = await changePullRequest({ trunk: at.trunk.api }, full, this.prActor(actor));
    // A claim covers only a change that could be made: a refusal or failure gives the click back.
    if (r.outcome === 'refused' || r.outcome === 'failed') await releaseClick(as, req.clickKey);
    await actor.audit(r.action, r.target, r.outcome, { ...asked, ...outcomeDetail(r) });
    // Who submitted it from Slack hears of it as its author does (issue 29); what Trunk accepted stays done.
    if (r.outcome === 'ok' && req.action === 'submit')
      await new SubmitterRepository(this.#deps.store.db)
        .record(
          actor.workspace.id,
          queueKeyOf(at.ref),
          req.prNumber,
          actor.userId,
          req.clickKey ? 'button' : 'command',
          actor.now(),
        )
        .catch((err: unknown) =>
          this.#deps.logger.warn({ err }, 'could not keep who submitted a PR; its author still hears'),
        );
    return r;
  }

  /** The checks of `change` without the write, for Cancel's confirmation (claims no click). */
  async preview(
    actor: Actor,
    at: QueueAt,
    req: Omit<PrChangeRequest, 'ref' | 'clickKey'>,
  ): Promise<PrPreview> {
    const full = { ...req, ref: at.ref };
    const r = await previewPullRequestChange({ trunk: at.trunk.api }, full, this.prActor(actor));
    if (r.outcome !== 'ready')
      await actor.audit(r.action, r.target, r.outcome, { ...requestDetail(full), ...outcomeDetail(r) });
    return r;
  }

  /** The queue's PRs (anyone may read). */
  list(_actor: Actor, at: QueueAt, opts: ListOptions): Promise<ReadAnswer<PrListing>> {
    const inTime = { ...opts, deadlineAt: opts.deadlineAt ?? Date.now() + LISTING_DEADLINE_MS };
    return listQueuePullRequests({ trunk: at.trunk.api }, at.ref, inTime).then(
      (value) => ({ answer: 'read' as const, value }),
      (error: unknown) => ({ answer: 'read_failed' as const, error }),
    );
  }

  /** The PR domain's view of the person: operator or not, and who holds a GitHub login here. */
  prActor(actor: Actor): PrActor {
    const people = new PeopleRepository(this.#deps.store.db);
    return {
      userId: actor.userId,
      operator: () => actor.operator(),
      authorOf: async (login) => {
        const link = await people.byLogin(actor.workspace.id, login);
        return link ? { userId: link.userId, verified: link.verified } : undefined;
      },
    };
  }
}

/** What every audit row of a PR attempt says: how it was asked (typed or clicked) and what was asked for. */
function requestDetail(req: Omit<PrChangeRequest, 'clickKey'>): Record<string, unknown> {
  const d: Record<string, unknown> = {
    via: req.expected === undefined ? 'command' : 'button',
    pr: req.prNumber,
  };
  if (req.priority !== undefined) d.priority = req.priority;
  if (req.noBatch) d.noBatch = true;
  if (req.reason) d.reason = req.reason;
  if (req.expected !== undefined) d.expected = req.expected;
  return d;
}

/** The audit row's detail for what came of the attempt. */
function outcomeDetail(r: PrChangeResult): Record<string, unknown> {
  switch (r.outcome) {
    case 'refused':
      return { because: r.because };
    case 'noop':
      return { why: r.reason, current: r.current?.state };
    case 'failed':
      return failureDetail(r.error);
    case 'ok':
      return {
        because: r.because,
        confirmedBy: r.confirmedBy,
        sent: r.sent,
        before: r.before?.state ?? null,
        after: r.after?.state ?? null,
      };
  }
}
