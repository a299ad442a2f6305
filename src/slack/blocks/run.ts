/** `/mergequeue run <id>`: a test run's status, its required statuses with their checks, and the PRs in it. */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { TestRun } from '../../trunk/types.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, link, plural, prUrl, queueLabel, trunkDate } from './format.ts';
import { context, fields, header, sectionsOfLines } from './kit.ts';

export interface RunInput {
  ref: QueueRef;
  testRunId: string;
  run: TestRun;
}

const STATUS_EMOJI: Record<string, string> = {
  in_progress: ':hourglass_flowing_sand:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  cancelled: ':no_entry_sign:',
};

const SOURCE: Record<string, string> = {
  trunk_config: 'the repository config file',
  repo_provider_branch_protection: 'branch protection',
  merge_instance: "the queue's own settings",
};

function list(items: readonly string[] | undefined, max: number, fmt: (s: string) => string): string {
  const l = items ?? [];
  if (l.length === 0) return 'none';
  const shown = l.slice(0, max).map(fmt).join(', ');
  return l.length > max ? `${shown} and ${l.length - max} more` : shown;
}

export function renderRun(input: RunInput): SlackReply {
  const { ref, run } = input;
  const status = String(run.status ?? 'unknown').toLowerCase();
  const checks = new Map<string, string>();
  for (const suite of run.checkSuites ?? [])
    for (const c of suite.checkRuns ?? []) if (c.name) checks.set(c.name, c.url);
  for (const s of run.statusChecks ?? [])
    if (s.context && !checks.has(s.context)) checks.set(s.context, s.url);

  const blocks: KnownBlock[] = [
    header(`Test run ${input.testRunId}`),
    fields([
      `*Status*\n${STATUS_EMOJI[status] ?? ':grey_question:'} ${esc(status.replaceAll('_', ' '))}`,
      `*Queue*\n${esc(queueLabel(ref))}`,
      `*Test branch*\n${code(run.testBranch, 200) || 'unknown'} at ${code((run.testBranchSha ?? '').slice(0, 12), 20) || '?'}`,
      `*Started*\n${run.createdAt ? trunkDate(run.createdAt) : 'unknown'}`,
    ]),
  ];

  const required = run.requiredStatuses ?? [];
  const source = run.requiredStatusesSource
    ? ` (from ${esc(SOURCE[String(run.requiredStatusesSource)] ?? String(run.requiredStatusesSource))})`
    : '';
  const statusLines = required.map((name) => {
    const url = checks.get(name);
    return `• ${url !== undefined ? link(url, name) : esc(name)}${url === undefined ? ' — not reported yet' : ''}`;
  });
  blocks.push(
    ...sectionsOfLines(
      [
        `*Required statuses (${required.length})*${source}`,
        ...(statusLines.length ? statusLines : ['• none']),
      ],
      3,
      (n) => `_…and ${n} more_`,
    ),
  );

  const prs = run.testedPullRequests ?? [];
  const prLines = prs.map(
    (p) =>
      `• ${link(p.prUrl || prUrl(ref.repo, p.prNumber), `#${p.prNumber}`)} ${escTrim(p.title || '', 120)}`,
  );
  blocks.push(
    ...sectionsOfLines(
      [`*Tested PRs (${prs.length})*`, ...(prLines.length ? prLines : ['• none'])],
      3,
      (n) => `_…and ${n} more_`,
    ),
  );

  const dependent = run.dependentPrs ?? [];
  const extra: string[] = [];
  if (dependent.length > 0)
    extra.push(
      `*Depends on*\n${list(dependent.map(String), 20, (n) => link(prUrl(ref.repo, Number(n)), `#${n}`))}`,
    );
  if (run.impactedTargets !== undefined)
    extra.push(
      `*Impacted targets (${run.impactedTargets.length})*\n${list(run.impactedTargets, 15, (t) => code(t, 80))}`,
    );
  if (run.impactedTargetsForTestedPrs !== undefined)
    extra.push(
      `*Of the tested PRs (${run.impactedTargetsForTestedPrs.length})*\n${list(run.impactedTargetsForTestedPrs, 15, (t) => code(t, 80))}`,
    );
  if (extra.length > 0) blocks.push(fields(extra));
  const other = [...checks.keys()].filter((k) => !required.includes(k)).length;
  if (other > 0)
    blocks.push(context(`${other} other check${other === 1 ? '' : 's'} reported on the test branch.`));

  return {
    text: escTrim(
      `Test run ${input.testRunId} on ${queueLabel(ref)}: ${status}, ${plural(prs.length, 'PR')} tested`,
      3000,
    ),
    blocks,
    response_type: 'ephemeral',
  };
}
