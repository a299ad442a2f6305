/**
 * The PR-level operations of the fake: submitPullRequest, cancelPullRequest, restartTestsOnPullRequest and
 * listPullRequests, over the same state getQueue and getSubmittedPullRequest read. A PR in the queue lives
 * in `record.enqueued` (so getQueue lists it); one that left it (cancelled, failed, merged) lives in
 * `record.submitted` with `isCurrentlySubmittedToQueue: false`, so getSubmittedPullRequest reads it.
 */
import {
  type EnqueuedPullRequest,
  PULL_REQUEST_STATES_IN_QUEUE as IN_QUEUE,
  type PullRequestState,
  type SubmittedPullRequest,
} from '../../../src/trunk/types.ts';
import type { HandlerState, Outcome } from './handler-state.ts';
import { findSubmittedPr, makeEnqueuedPr, type QueueRecord, queueKey, queueLabel } from './state.ts';
import {
  type Checked,
  checkListPrs,
  checkPrRef,
  checkSubmitPr,
  type PrRefBody,
  type QueueAddressBody,
} from './validate.ts';

const CONCLUDED: ReadonlySet<string> = new Set<PullRequestState>(['merged', 'failed', 'cancelled']);

/** States restart accepts: a failed run (or one about to fail) goes back to testing; a running one restarts. */
const RESTARTABLE: ReadonlySet<string> = new Set<PullRequestState>(['failed', 'pending_failure', 'testing']);

const bad = (error: string): Outcome => ({ status: 400, text: `invalid request: ${error}` });
const notFound = (text: string): Outcome => ({ status: 404, text });
const done: Outcome = { status: 200, json: {} };

function isInQueue(pr: SubmittedPullRequest): boolean {
  return pr.isCurrentlySubmittedToQueue && IN_QUEUE.has(pr.state ?? 'pending');
}

/** The queue of a checked body, or the 404 the real service gives. */
function queueOf(s: HandlerState, c: QueueAddressBody): QueueRecord | Outcome {
  return (
    s.queues.get(c.repo, c.targetBranch) ??
    notFound(`merge queue not found for ${queueLabel(c.repo, c.targetBranch)}`)
  );
}

function withQueue<T extends QueueAddressBody>(
  s: HandlerState,
  checked: Checked<T>,
  fn: (record: QueueRecord, body: T) => Outcome,
): Outcome {
  if (!checked.ok) return bad(checked.error);
  const record = queueOf(s, checked.value);
  return 'status' in record ? record : fn(record, checked.value);
}

function isoNow(s: HandlerState): string {
  return new Date((s.now ?? Date.now)()).toISOString();
}

/** The PR as getSubmittedPullRequest reads it, or the 404 naming it. */
function existing(record: QueueRecord, c: PrRefBody): SubmittedPullRequest | Outcome {
  return (
    findSubmittedPr(record, c.prNumber) ??
    notFound(`pull request #${c.prNumber} not found in merge queue ${queueLabel(c.repo, c.targetBranch)}`)
  );
}

/** Puts `pr` in the queue (replacing any entry of the same number) and forgets its out-of-queue record. */
function enterQueue(record: QueueRecord, pr: EnqueuedPullRequest): void {
  record.submitted.delete(pr.prNumber);
  const at = record.enqueued.findIndex((p) => p.prNumber === pr.prNumber);
  if (at === -1) record.enqueued.push(pr);
  else record.enqueued[at] = pr;
}

export function submitPullRequest(body: unknown, s: HandlerState): Outcome {
  return withQueue(s, checkSubmitPr(body), (record, c) => {
    const before = findSubmittedPr(record, c.prNumber);
    const label = queueLabel(c.repo, c.targetBranch);
    if (before && isInQueue(before))
      return bad(
        `pull request #${c.prNumber} is already in merge queue ${label} (${before.state ?? 'pending'})`,
      );
    if (before?.state === 'merged') return bad(`pull request #${c.prNumber} is already merged`);
    const defaulted = c.priority === undefined;
    const priority = c.priority ?? { value: 100, name: 'medium' };
    // A PR the fake has not seen gets realistic details from its number, as if read from the code host.
    const known = before ?? makeEnqueuedPr({ prNumber: c.prNumber });
    enterQueue(
      record,
      makeEnqueuedPr({
        prNumber: c.prNumber,
        prTitle: known.prTitle,
        prSha: known.prSha,
        prAuthor: known.prAuthor,
        prBaseBranch: c.targetBranch,
        state: 'pending',
        stateChangedAt: isoNow(s),
        priorityValue: priority.value,
        priorityName: priority.name,
        usedDefaultPriorityName: defaulted ? priority.name : '',
        skipTheLine: priority.value === 0,
        noBatch: c.noBatch,
      }),
    );
    s.prTransition?.(record, c.prNumber, 'submitted');
    return done;
  });
}

export function cancelPullRequest(body: unknown, s: HandlerState): Outcome {
  return withQueue(s, checkPrRef(body), (record, c) => {
    const pr = existing(record, c);
    if ('status' in pr) return pr;
    if (!isInQueue(pr))
      return bad(`pull request #${c.prNumber} is not in the merge queue (${pr.state ?? 'not submitted'})`);
    record.enqueued = record.enqueued.filter((p) => p.prNumber !== c.prNumber);
    record.submitted.set(c.prNumber, {
      ...pr,
      state: 'cancelled',
      stateChangedAt: isoNow(s),
      isCurrentlySubmittedToQueue: false,
    });
    s.prTransition?.(record, c.prNumber, 'cancelled');
    return done;
  });
}

export function restartTestsOnPullRequest(body: unknown, s: HandlerState): Outcome {
  return withQueue(s, checkPrRef(body), (record, c) => {
    const pr = existing(record, c);
    if ('status' in pr) return pr;
    const state = pr.state ?? 'pending';
    if (!RESTARTABLE.has(state))
      return bad(
        `pull request #${c.prNumber} is ${state}; tests can be restarted only when it is failed, pending_failure or testing`,
      );
    const queued = record.enqueued.find((p) => p.prNumber === c.prNumber);
    const { forceEnqueued: _f, isCurrentlySubmittedToQueue: _i, readiness: _r, ...fields } = pr;
    enterQueue(record, {
      ...fields,
      id: pr.id ?? `pr_${pr.prNumber}`,
      usedDefaultPriorityName: pr.usedDefaultPriorityName ?? '',
      noBatch: queued?.noBatch ?? false,
      state: 'testing',
      stateChangedAt: isoNow(s),
    });
    s.prTransition?.(record, c.prNumber, 'testing');
    return done;
  });
}

/** A row as listPullRequests sends it (the enqueued PR fields; `id` left out when the PR has none). */
type Row = EnqueuedPullRequest;

/** The queue's PRs: those in it in queue order, then those that left it, most recent first. */
function rowsOf(record: QueueRecord): Row[] {
  const inQueue = record.enqueued.map((p) => ({ ...p }));
  const listed = new Set(inQueue.map((p) => p.prNumber));
  const left: Row[] = [];
  for (const pr of record.submitted.values()) {
    if (listed.has(pr.prNumber)) continue;
    const { forceEnqueued: _f, isCurrentlySubmittedToQueue: _i, readiness: _r, id, ...fields } = pr;
    left.push({
      ...fields,
      id: id ?? '',
      usedDefaultPriorityName: pr.usedDefaultPriorityName ?? '',
      noBatch: false,
    });
  }
  // Each time parsed once: a queue with weeks of history holds thousands of departed PRs.
  const at = new Map(left.map((r) => [r, Date.parse(r.stateChangedAt)]));
  left.sort((a, b) => (at.get(b) ?? 0) - (at.get(a) ?? 0) || b.prNumber - a.prNumber);
  return [...inQueue, ...left];
}

export function listPullRequests(body: unknown, s: HandlerState): Outcome {
  return withQueue(s, checkListPrs(body), (record, c) => {
    const scope = `prs|${queueKey(c.repo, c.targetBranch)}|${c.state ?? ''}|${c.since ?? ''}`;
    const resolved = s.tokens.resolve(scope, c.cursor, 'cursor');
    if (!resolved.ok) return bad(resolved.error);
    const since = c.since;
    const rows = rowsOf(record).filter(
      (r) =>
        (c.state === undefined || r.state === c.state) &&
        (since === undefined || (CONCLUDED.has(r.state ?? '') && Date.parse(r.stateChangedAt) >= since)),
    );
    const end = Math.min(resolved.offset + c.take, rows.length);
    const pullRequests = rows
      .slice(resolved.offset, end)
      .map(({ id, ...rest }) => (id ? { id, ...rest } : rest));
    const json: Record<string, unknown> = { pullRequests };
    if (end < rows.length) json['nextCursor'] = s.tokens.token(scope, end);
    return { status: 200, json };
  });
}
