/**
 * The operations: validated body in, status and body out. No HTTP here (server.ts does that). The PR-level
 * ones live in pull-requests.ts.
 */
import type { Page, Repo, UpdateQueueRequest } from '../../../src/trunk/types.ts';
import type { FakeOperation } from './faults.ts';
import { pageOf } from './flaky.ts';
import type { HandlerState, Outcome } from './handler-state.ts';
import {
  cancelPullRequest,
  listPullRequests,
  restartTestsOnPullRequest,
  submitPullRequest,
} from './pull-requests.ts';
import { applyUpdate, findSubmittedPr, queueLabel, queueView, repoKey } from './state.ts';
import {
  type Checked,
  checkGetQueue,
  checkGetSubmittedPr,
  checkGetTestRun,
  checkListFailing,
  checkListQuarantined,
  checkUpdateQueue,
} from './validate.ts';

const bad = (error: string): Outcome => ({ status: 400, text: `invalid request: ${error}` });
const notFound = (text: string): Outcome => ({ status: 404, text });

function ok<T>(checked: Checked<T>): checked is { ok: true; value: T } {
  return checked.ok;
}

function slug(repo: Repo): string {
  return `${repo.owner}/${repo.name}`;
}

export function handle(op: FakeOperation, body: unknown, s: HandlerState): Outcome {
  switch (op) {
    case 'submitPullRequest':
      return submitPullRequest(body, s);
    case 'cancelPullRequest':
      return cancelPullRequest(body, s);
    case 'restartTestsOnPullRequest':
      return restartTestsOnPullRequest(body, s);
    case 'listPullRequests':
      return listPullRequests(body, s);
    case 'getQueue': {
      const c = checkGetQueue(body);
      if (!ok(c)) return bad(c.error);
      const record = s.queues.get(c.value.repo, c.value.targetBranch);
      if (!record)
        return notFound(`merge queue not found for ${queueLabel(c.value.repo, c.value.targetBranch)}`);
      return { status: 200, json: { ...queueView(record, true) } };
    }
    case 'updateQueue': {
      const c = checkUpdateQueue(body);
      if (!ok(c)) return bad(c.error);
      const record = s.queues.get(c.value.repo, c.value.targetBranch);
      if (!record)
        return notFound(`merge queue not found for ${queueLabel(c.value.repo, c.value.targetBranch)}`);
      applyUpdate(record, c.value as unknown as UpdateQueueRequest);
      return { status: 200, json: { ...queueView(record, false) } };
    }
    case 'getSubmittedPullRequest': {
      const c = checkGetSubmittedPr(body);
      if (!ok(c)) return bad(c.error);
      const { repo, targetBranch, prNumber, prBranch } = c.value;
      const record = s.queues.get(repo, targetBranch);
      if (!record) return notFound(`merge queue not found for ${queueLabel(repo, targetBranch)}`);
      if (prNumber === undefined)
        return notFound(
          `no pull request from branch ${prBranch} was submitted to ${queueLabel(repo, targetBranch)}`,
        );
      const pr = findSubmittedPr(record, prNumber);
      if (!pr)
        return notFound(
          `pull request #${prNumber} not found in merge queue ${queueLabel(repo, targetBranch)}`,
        );
      return { status: 200, json: { ...pr } };
    }
    case 'getMergeQueueTestingDetails': {
      const c = checkGetTestRun(body);
      if (!ok(c)) return bad(c.error);
      const { repo, targetBranch, testRunId } = c.value;
      const record = s.queues.get(repo, targetBranch);
      if (!record) return notFound(`merge queue not found for ${queueLabel(repo, targetBranch)}`);
      const run = record.runs.get(testRunId);
      if (!run) return notFound(`test run ${testRunId} not found for ${queueLabel(repo, targetBranch)}`);
      return { status: 200, json: structuredClone(run) as unknown as Record<string, unknown> };
    }
    case 'listFailingTests': {
      const c = checkListFailing(body);
      if (!ok(c)) return bad(c.error);
      const { repo, orgSlug, pageSize, pageToken, start, end } = c.value;
      const known = knownRepo(s, repo, orgSlug);
      if (known) return known;
      const scope = `failing|${repoKey(repo)}|${start}|${end}`;
      const resolved = s.tokens.resolve(scope, pageToken);
      if (!resolved.ok) return bad(resolved.error);
      const list = s.flaky.get(repoKey(repo))?.failing;
      const rows = list ? list.inWindow(start, end) : new Int32Array(0);
      const { start: from, end: to, page } = pageOf(s.tokens, scope, rows.length, resolved.offset, pageSize);
      loop(s, scope, pageToken, page);
      const tests = [];
      for (let i = from; i < to; i++) tests.push(list?.source.at(rows[i] as number));
      return { status: 200, json: { tests, page } };
    }
    case 'listQuarantinedTests': {
      const c = checkListQuarantined(body);
      if (!ok(c)) return bad(c.error);
      const { repo, orgSlug, pageSize, pageToken } = c.value;
      const known = knownRepo(s, repo, orgSlug);
      if (known) return known;
      const scope = `quarantined|${repoKey(repo)}`;
      const resolved = s.tokens.resolve(scope, pageToken);
      if (!resolved.ok) return bad(resolved.error);
      const source = s.flaky.get(repoKey(repo))?.quarantined;
      const total = source?.count ?? 0;
      const { start: from, end: to, page } = pageOf(s.tokens, scope, total, resolved.offset, pageSize);
      loop(s, scope, pageToken, page);
      const rows = [];
      for (let i = from; i < to; i++) rows.push(source?.at(i));
      return { status: 200, json: { quarantined_tests: rows, page } };
    }
  }
}

/** 404 for an organisation or repository the fake does not know (a repo is known once it has a queue or tests). */
function knownRepo(s: HandlerState, repo: Repo, orgSlug: string): Outcome | undefined {
  if (s.orgSlug !== undefined && orgSlug.toLowerCase() !== s.orgSlug.toLowerCase())
    return notFound(`organization not found: ${orgSlug}`);
  const key = repoKey(repo);
  if (s.flaky.has(key)) return undefined;
  for (const record of s.queues.queues.values()) if (repoKey(record.repo) === key) return undefined;
  return notFound(`repository not found: ${slug(repo)}`);
}

function loop(s: HandlerState, scope: string, pageToken: string, page: Page): void {
  if (s.loopingPageTokens?.() && page.next_page_token !== '')
    page.next_page_token = pageToken !== '' ? pageToken : s.tokens.token(scope, 0);
}
