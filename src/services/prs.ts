/**
 * The PR feature: submit, cancel and restart one PR (typed or clicked), and list a queue's PRs. Who may act
 * is decided by the PR domain (queue/pull-requests.ts: an operator, or the PR's author through a link an
 * operator made) from what this service reads for it: the person's operator standing (the actor) and who
 * holds the PR's GitHub login here (the people links). Every attempt is audited by the domain.
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
} from '../queue/pull-requests.ts';
import { PeopleRepository } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import { type QueueAt, QueueService, type ReadAnswer } from './queue.ts';
import { LISTING_DEADLINE_MS } from './tests.ts';

export class PrService {
  readonly #deps: ServiceDeps;
  readonly #queue: QueueService;

  constructor(deps: ServiceDeps, queue = new QueueService(deps)) {
    this.#deps = deps;
    this.#queue = queue;
  }

  /** Acts on the PR's current state if the person may (refusals, no-ops and failures audited). */
  change(actor: Actor, at: QueueAt, req: Omit<PrChangeRequest, 'ref'>): Promise<PrChangeResult> {
    return changePullRequest(
      this.#queue.context(actor, at.trunk),
      { ...req, ref: at.ref },
      this.prActor(actor),
    );
  }

  /** The checks of `change` without the write, for Cancel's confirmation (claims no click). */
  preview(actor: Actor, at: QueueAt, req: Omit<PrChangeRequest, 'ref' | 'clickKey'>): Promise<PrPreview> {
    return previewPullRequestChange(
      this.#queue.context(actor, at.trunk),
      { ...req, ref: at.ref },
      this.prActor(actor),
    );
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
      operator: () => actor.operator(),
      authorOf: async (login) => {
        const link = await people.byLogin(actor.workspace.id, login);
        return link ? { userId: link.userId, verified: link.verified } : undefined;
      },
    };
  }
}
