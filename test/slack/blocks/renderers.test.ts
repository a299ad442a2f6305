import { describe, expect, it } from 'vitest';
import { makeQueue, makeSubmittedPr, makeTestRun } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import type { FlakySummary, QuarantinedSummary } from '../../../src/queue/summaries.ts';
import { changedFields, renderAnnouncement, renderNoop } from '../../../src/slack/blocks/announcement.ts';
import {
  renderConfig,
  renderConnected,
  renderDefaultChanged,
  renderOperatorsChanged,
  renderOperatorsList,
} from '../../../src/slack/blocks/config.ts';
import {
  renderError,
  renderInvalidButton,
  renderNoOrgSlug,
  renderNoTarget,
  renderNotConnected,
  renderRefusal,
  renderUsageError,
} from '../../../src/slack/blocks/errors.ts';
import { renderFlaky, renderQuarantined } from '../../../src/slack/blocks/flaky.ts';
import { slackDate } from '../../../src/slack/blocks/format.ts';
import { renderHelp } from '../../../src/slack/blocks/help.ts';
import { renderPr } from '../../../src/slack/blocks/pr.ts';
import { renderRun } from '../../../src/slack/blocks/run.ts';
import { COMMAND_NAMES } from '../../../src/slack/grammars/grammar.ts';
import {
  TrunkAuthError,
  TrunkInvalidRequestError,
  TrunkNotFoundError,
  TrunkRateLimitedError,
  TrunkUnavailableError,
} from '../../../src/trunk/errors.ts';
import type { Queue } from '../../../src/trunk/types.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const nasty = `<script>&amp; ${'x<>&'.repeat(30)}`.slice(0, 100);
const allText = (r: { text: string; blocks?: unknown }) => JSON.stringify(r.blocks);
/** Every mrkdwn string in a payload: where Slack would read `<…>` as a link or mention. */
function mrkdwnTexts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) mrkdwnTexts(n, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
    for (const v of Object.values(o)) mrkdwnTexts(v, out);
  }
  return out;
}

describe('help', () => {
  it('lists every command and renders each topic', () => {
    const all = renderHelp();
    assertValidReply(all);
    for (const name of COMMAND_NAMES) {
      expect(allText(all)).toContain(`/mergequeue ${name}`);
      const one = renderHelp(name);
      assertValidReply(one);
      expect(one.blocks?.[0]).toMatchObject({ type: 'header', text: { text: `/mergequeue ${name}` } });
    }
  });
});

describe('announcement', () => {
  const before = makeQueue({ state: 'running', concurrency: 2 });
  it('says who did what with the state before and after', () => {
    const r = renderAnnouncement({
      action: 'pause',
      ref,
      userId: 'U123',
      at: 1_700_000_000_000,
      reason: 'main is <broken> & red',
      before,
      after: { ...before, state: 'paused' },
    });
    assertValidReply(r);
    expect(r.response_type).toBe('in_channel');
    expect(r.text).toContain('<@U123> paused acme/web:main — main is &lt;broken&gt; &amp; red');
    const text = allText(r);
    expect(text).toContain('main is &lt;broken&gt; &amp; red');
    expect(text).toContain('`running` → `paused`');
    expect(text).toContain('<!date^1700000000^{date_short_pretty} {time}|');
  });
  it('lists every changed setting for settings, and the concurrency even if unchanged', () => {
    const after: Queue = { ...before, mode: 'parallel', requiredStatuses: ['a', 'b'], batch: !before.batch };
    expect(changedFields(before, after).map((c) => c.field)).toEqual(['mode', 'batch', 'requiredStatuses']);
    const s = renderAnnouncement({ action: 'settings', ref, userId: 'U1', at: 0, before, after });
    assertValidReply(s);
    const c = renderAnnouncement({ action: 'concurrency', ref, userId: 'U1', at: 0, before, after: before });
    expect(allText(c)).toContain('concurrency: `2` → `2`');
  });
  it('noop is ephemeral and escaped', () => {
    const r = renderNoop('acme/web is <already> paused');
    assertValidReply(r);
    expect(r.response_type).toBe('ephemeral');
    expect(allText(r)).toContain('&lt;already&gt;');
  });
});

describe('pr', () => {
  it('explains a PR that is not testing, escaping the title', () => {
    const pr = makeSubmittedPr({
      prNumber: 42,
      prTitle: nasty,
      state: 'not_ready',
      isCurrentlySubmittedToQueue: true,
      readiness: {
        doesBaseBranchMatch: false,
        gitHubMergeability: 'not_mergeable',
        requiresImpactedTargets: true,
        hasImpactedTargets: false,
      },
    });
    const r = renderPr({ ref, pr, appUrl: 'https://app.trunk.io', orgSlug: 'acme' });
    assertValidReply(r);
    const text = allText(r);
    expect(text).toContain('not testing because 3 conditions are not met');
    expect(text).toContain('not the queue');
    expect(text).toContain('not mergeable');
    expect(text).toContain('impacted targets');
    expect(mrkdwnTexts(r.blocks).join('\n')).not.toContain('<script>');
    expect(r.blocks?.[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    expect(text).toContain('https://github.com/acme/web/pull/42');
  });
  it('copes with unknown state values and no readiness', () => {
    const pr = makeSubmittedPr({
      prNumber: 7,
      state: 'WEIRD_NEW' as never,
      isCurrentlySubmittedToQueue: true,
    });
    delete (pr as { readiness?: unknown }).readiness;
    const r = renderPr({ ref, pr });
    assertValidReply(r);
    expect(allText(r)).toContain('weird_new');
  });
});

describe('run', () => {
  it('shows statuses with their check links, tested and dependent PRs, impacted targets', () => {
    const run = makeTestRun({
      status: 'failed',
      requiredStatuses: ['ci/build', 'ci/test', 'missing'],
      checkSuites: [{ checkRuns: [{ name: 'ci/build', url: 'https://ci.example/1' }] }],
      statusChecks: [{ context: 'ci/test', url: 'https://ci.example/2' }],
      testedPullRequests: [{ prNumber: 5, prUrl: 'https://github.com/acme/web/pull/5', title: nasty }],
      dependentPrs: [3, 4],
      impactedTargets: ['//a', '//b'],
      impactedTargetsForTestedPrs: ['//a'],
    });
    const r = renderRun({ ref, testRunId: 'run-1', run });
    assertValidReply(r);
    const text = allText(r);
    expect(text).toContain('<https://ci.example/1|ci/build>');
    expect(text).toContain('<https://ci.example/2|ci/test>');
    expect(text).toContain('missing — not reported yet');
    expect(text).toContain('#3');
    expect(text).toContain('Impacted targets (2)');
  });
  it('stays within limits with thousands of statuses and PRs', () => {
    const many = Array.from({ length: 2000 }, (_, i) => `status-${i}-${'y'.repeat(50)}`);
    const run = makeTestRun({
      requiredStatuses: many,
      testedPullRequests: Array.from({ length: 500 }, (_, i) => ({
        prNumber: i,
        prUrl: 'javascript:alert(1)',
        title: nasty,
      })),
      impactedTargets: many,
    });
    const r = renderRun({ ref, testRunId: 'x'.repeat(300), run });
    assertValidReply(r);
    expect(allText(r)).toContain('more');
    expect(allText(r)).not.toContain('javascript:');
  });
});

describe('flaky and quarantined', () => {
  const flaky: FlakySummary = {
    repo: ref.repo,
    windowStart: 0,
    windowEnd: 86_400_000,
    total: 1234,
    scanned: 500,
    complete: false,
    quarantinedAmongScanned: 12,
    top: Array.from({ length: 5 }, (_, i) => ({
      name: `${nasty}${i}`,
      url: `https://app.trunk.io/t/${i}`,
      failureRate24h: 0.5,
      failureRate7d: 0.2,
      prsImpacted7d: 10 - i,
      codeowners: ['@acme/a', '@acme/b', '@acme/c', '@acme/d'],
      quarantined: i === 0,
      ticketUrl: 'https://jira/1',
      failure: 'AssertionError: expected <a> & <b>\nstack',
    })),
  };
  it('renders counts and the top entries compactly', () => {
    const r = renderFlaky(flaky, { appUrl: 'https://app.trunk.io', orgSlug: 'acme' });
    assertValidReply(r);
    expect(r.blocks!.length).toBeLessThanOrEqual(5);
    const text = allText(r);
    expect(text).toContain('1,234 tests');
    expect(text).toContain('50%');
    expect(text).toContain('https://app.trunk.io/acme/flaky-tests/acme/web');
    expect(mrkdwnTexts(r.blocks).join('\n')).not.toContain('<script>');
    const none = renderFlaky({ ...flaky, total: 0, scanned: 0, top: [], complete: true });
    assertValidReply(none);
    expect(allText(none)).toContain('No test failed');
  });
  it('renders quarantined tests with owners', () => {
    const q: QuarantinedSummary = {
      repo: ref.repo,
      total: 3,
      scanned: 3,
      complete: true,
      top: [{ name: nasty, file: 'a`b.ts', codeowners: ['@x'], quarantinedAt: '2026-01-01T00:00:00Z' }],
      owners: [{ owner: '@x', count: 3 }],
    };
    const r = renderQuarantined(q);
    assertValidReply(r);
    expect(allText(r)).toContain('@x (3)');
    expect(allText(r)).toContain(slackDate(Date.parse('2026-01-01T00:00:00Z')));
  });
});

describe('errors and refusals', () => {
  it('maps every Trunk error kind to its message and hint, never a stack', () => {
    const errors = [
      new TrunkAuthError('401', { operation: 'getQueue', status: 401 }),
      new TrunkNotFoundError('404', { operation: 'getQueue', status: 404, detail: 'queue <x> not found' }),
      new TrunkInvalidRequestError('400', {
        operation: 'updateQueue',
        field: 'concurrency',
        rule: 'must be ≥ 1',
        local: true,
      }),
      new TrunkRateLimitedError('429', { operation: 'getQueue', retryAfterMs: 5000 }),
      new TrunkUnavailableError('503', { operation: 'getQueue', timedOut: true }),
    ];
    for (const e of errors) {
      const r = renderError(e);
      assertValidReply(r);
      expect(r.response_type).toBe('ephemeral');
      expect(r.text).toContain(e.userMessage.replace(/[<>&]/g, '').slice(0, 10));
      expect(allText(r)).not.toMatch(/\bat \S+\.ts:\d/);
    }
    expect(allText(renderError(errors[1]))).toContain('&lt;x&gt;');
    expect(renderError(errors[3]).text).toContain('5 s');
    const generic = renderError(new Error('secret xoxb-123 at foo.ts:1'));
    expect(JSON.stringify(generic)).not.toContain('xoxb');
    expect(JSON.stringify(generic)).not.toContain('foo.ts');
  });
  it('renders usage errors, refusals and setup hints', () => {
    for (const r of [
      renderUsageError('`x` is not a command', '/mergequeue help'),
      renderRefusal('pause acme/web:main', 'only operators may'),
      renderNoTarget(),
      renderNotConnected(),
      renderNoOrgSlug(),
      renderInvalidButton(),
    ]) {
      assertValidReply(r);
      expect(r.response_type).toBe('ephemeral');
    }
    expect(allText(renderRefusal('pause', 'nope'))).toContain('Nothing was changed');
  });
});

describe('config replies', () => {
  it('renders configuration, defaults and operator changes', () => {
    const ops = Array.from({ length: 120 }, (_, i) => ({
      kind: (i % 2 ? 'user' : 'usergroup') as 'user' | 'usergroup',
      id: i % 2 ? `U${i}` : `S${i}`,
      addedBy: 'U1',
      addedAt: 0,
    }));
    const all = [
      renderConfig({
        operators: ops,
        hasTrunkCredentials: true,
        trunkOrgSlug: 'acme',
        channelDefault: { repo: ref.repo, branch: 'main' },
        installerUserId: 'U9',
      }),
      renderConfig({ operators: [], hasTrunkCredentials: false }),
      renderDefaultChanged('channel', { repo: ref.repo }),
      renderDefaultChanged('workspace', null),
      renderOperatorsChanged('add', {
        changed: [{ kind: 'user', id: 'U1' }],
        unchanged: [{ kind: 'usergroup', id: 'S1' }],
        unresolved: ['bob'],
      }),
      renderOperatorsChanged('remove', { changed: [], unchanged: [], unresolved: [] }),
      renderOperatorsList({ operators: ops, installerUserId: 'U9' }),
      renderConnected('acme', { repo: ref.repo, branch: 'main' }),
    ];
    for (const r of all) assertValidReply(r);
    expect(allText(all[0]!)).toContain('<!subteam^S0>');
    expect(allText(all[0]!)).toContain('acme/web:main');
    expect(allText(all[4]!)).toContain('Not found: @bob');
  });
});
