/** `/mergequeue flaky` and `/mergequeue quarantined`: counts and the top few, with links; not a wall of text. */
import type { KnownBlock } from '@slack/types';
import { formatRepo } from '../../core/target.ts';
import type { FlakySummary, QuarantinedSummary } from '../../queue/summaries.ts';
import type { SlackReply } from '../reply.ts';
import { esc, escTrim, link, percent, plural, slackDate, trunkDate, trunkFlakyUrl } from './format.ts';
import { context, header, section } from './kit.ts';

export interface LinkOptions {
  appUrl?: string;
  orgSlug?: string;
}

function owners(list: string[]): string {
  if (list.length === 0) return '';
  const shown = list
    .slice(0, 3)
    .map((o) => escTrim(o, 60))
    .join(', ');
  return ` · owners ${shown}${list.length > 3 ? ` +${list.length - 3}` : ''}`;
}

export function renderFlaky(s: FlakySummary, o: LinkOptions = {}): SlackReply {
  const repo = formatRepo(s.repo);
  const blocks: KnownBlock[] = [header(`Failing tests in ${repo}`)];
  const counted = s.complete ? '' : ` (top entries from the first ${plural(s.scanned, 'test')})`;
  if (s.total === 0) {
    blocks.push(
      section(
        `:white_check_mark: No test failed between ${slackDate(s.windowStart)} and ${slackDate(s.windowEnd)}.`,
      ),
    );
  } else {
    blocks.push(
      section(
        `*${plural(s.total, 'test')}* failed since ${slackDate(s.windowStart)}${counted}; ${s.quarantinedAmongScanned} of those read ${s.quarantinedAmongScanned === 1 ? 'is' : 'are'} quarantined.`,
      ),
    );
    const lines = s.top.map((t, i) => {
      const extra = [
        `${plural(t.prsImpacted7d, 'PR')} hit in 7 d`,
        `fails ${percent(t.failureRate24h)} (24 h)`,
        t.quarantined ? 'quarantined' : '',
        t.ticketUrl ? link(t.ticketUrl, 'ticket') : '',
      ].filter(Boolean);
      const failure = t.failure ? `\n    _${escTrim(t.failure.split('\n')[0] ?? '', 150)}_` : '';
      return `${i + 1}. ${link(t.url, escTrimPlain(t.name))} — ${extra.join(' · ')}${owners(t.codeowners)}${failure}`;
    });
    blocks.push(section(`*Worst first*\n${lines.join('\n')}`));
  }
  if (s.cutShort) blocks.push(cutShortNote(s.scanned, 'flaky', o, s));
  blocks.push(
    context(
      `${link(trunkFlakyUrl(o.appUrl, o.orgSlug, s.repo), 'All flaky tests in Trunk')} · ranked by PRs impacted, then failure rate`,
    ),
  );
  return {
    text: `${plural(s.total, 'test')} failed in ${repo} in the last 24 h${s.cutShort ? ' (incomplete: Trunk was slow)' : ''}`,
    blocks,
    response_type: 'ephemeral',
  };
}

/** A listing the deadline cut short: what it is, and how to see the rest. */
function cutShortNote(
  scanned: number,
  command: 'flaky' | 'quarantined',
  o: LinkOptions,
  s: Pick<FlakySummary, 'repo'>,
): KnownBlock {
  return section(
    `:hourglass: *Incomplete:* Trunk was slow to answer, so this lists only the first ${plural(scanned, 'test')} it sent in time. See them all in ${link(trunkFlakyUrl(o.appUrl, o.orgSlug, s.repo), 'Trunk')}, or run \`/mergequeue ${command} ${esc(formatRepo(s.repo))}\` again in a minute.`,
  );
}

/** link() escapes its label; names are only cut here. */
function escTrimPlain(name: string): string {
  return name.length > 120 ? `${Array.from(name).slice(0, 119).join('')}…` : name;
}

export function renderQuarantined(s: QuarantinedSummary, o: LinkOptions = {}): SlackReply {
  const repo = formatRepo(s.repo);
  const blocks: KnownBlock[] = [header(`Quarantined tests in ${repo}`)];
  if (s.total === 0) {
    blocks.push(section(':white_check_mark: No test is quarantined.'));
  } else {
    const by = s.owners.length
      ? ` Most belong to ${s.owners.map((x) => `${escTrim(x.owner, 60)} (${x.count})`).join(', ')}.`
      : '';
    blocks.push(
      section(
        `*${plural(s.total, 'test')}* quarantined now${s.complete ? '' : ` (newest from the first ${s.scanned})`}.${by}`,
      ),
    );
    const lines = s.top.map(
      (t, i) =>
        `${i + 1}. *${escTrim(t.name, 120)}*${t.file ? ` in \`${escTrim(t.file.replaceAll('`', "'"), 120)}\`` : ''} — since ${trunkDate(t.quarantinedAt)}${owners(t.codeowners)}`,
    );
    blocks.push(section(`*Most recent*\n${lines.join('\n')}`));
  }
  if (s.cutShort) blocks.push(cutShortNote(s.scanned, 'quarantined', o, s));
  blocks.push(context(link(trunkFlakyUrl(o.appUrl, o.orgSlug, s.repo), 'Open in Trunk')));
  return {
    text: `${plural(s.total, 'test')} quarantined in ${esc(repo)}${s.cutShort ? ' (incomplete: Trunk was slow)' : ''}`,
    blocks,
    response_type: 'ephemeral',
  };
}
