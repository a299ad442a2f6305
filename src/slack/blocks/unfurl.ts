/**
 * Link unfurls (chat.unfurl's `unfurls` map: URL → `{ blocks }`): a PR's state with its place in line or the
 * reason it failed, a queue's state, concurrency and depth, each with the time it was read and an Open in
 * Trunk link. Anyone in the channel sees an unfurl, so it carries no button that changes anything (no
 * button at all). The reason words are `why`'s (story.ts), so an unfurl says what `why` says.
 */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import { explainReadiness } from '../../queue/readiness.ts';
import type { PrReading, UnfurlView } from '../../services/unfurls.ts';
import { etaSentence } from './eta.ts';
import { esc, escTrim, link, plural, prUrl, queueLabel, slackDate, trunkQueueUrl } from './format.ts';
import { context, fields, section } from './kit.ts';
import { stateLabel } from './status.ts';
import { reasonWords } from './story.ts';

/** One link's unfurl, as chat.unfurl takes it. */
export interface UnfurlBody {
  blocks: KnownBlock[];
}

export interface UnfurlInput {
  appUrl: string;
  orgSlug: string;
}

/** The `unfurls` argument of chat.unfurl: one entry per link the app read. */
export function renderUnfurls(views: readonly UnfurlView[], o: UnfurlInput): Record<string, UnfurlBody> {
  const out: Record<string, UnfurlBody> = {};
  for (const v of views) out[v.url] = { blocks: renderUnfurl(v, o) };
  return out;
}

export function renderUnfurl(v: UnfurlView, o: UnfurlInput): KnownBlock[] {
  const label = esc(queueLabel(v.ref));
  const footer = context(
    `${label} · read from Trunk ${slackDate(v.readAt)} · ${link(trunkQueueUrl(o.appUrl, o.orgSlug, v.ref), 'Open in Trunk')}`,
  );
  if (v.kind === 'queue') {
    const q = v.queue;
    const depth = q.enqueuedPullRequests?.length;
    return [
      section(`*Merge queue ${label}*`),
      fields([
        `*State*\n${stateLabel(String(q.state))}`,
        `*Concurrency*\n${Number.isFinite(q.concurrency) ? q.concurrency : 'unknown'}`,
        `*In the queue*\n${depth === undefined ? 'unknown' : plural(depth, 'PR')}`,
        `*Mode*\n${esc(String(q.mode ?? 'unknown'))}`,
      ]),
      footer,
    ];
  }
  return [section(prText(v.ref, v.number, v.reading)), footer];
}

function prHead(ref: QueueRef, n: number, title: string | undefined, url?: string): string {
  return `*${link(url ?? prUrl(ref.repo, n), `#${n}`)} ${escTrim(title || '(no title)', 150)}*`;
}

function prText(ref: QueueRef, n: number, r: PrReading): string {
  if (r.source === 'v1') {
    const pr = r.pr;
    const head = `${prHead(ref, n, pr.prTitle)} by ${escTrim(pr.prAuthor || 'unknown', 80)}`;
    const state = String(pr.state ?? 'unknown').replaceAll('_', ' ');
    const where =
      r.position !== undefined && r.depth !== undefined
        ? ` — number ${r.position} of ${plural(r.depth, 'PR')} in the queue`
        : '';
    const left = pr.state === 'failed' || pr.state === 'cancelled';
    const why = left ? `\n\`/mergequeue why ${n} ${esc(queueLabel(ref))}\` tells more.` : '';
    return `${head}\n*${esc(state)}*${where}: it ${escTrim(explainReadiness(pr, ref.branch).summary.replace(/^#\d+ /, ''), 500)}${why}`;
  }
  if (r.at === 'in_queue') {
    const pr = r.eta.pr;
    return `${prHead(ref, n, pr.title, pr.htmlUrl ?? pr.url)}${pr.author ? ` by ${escTrim(pr.author, 80)}` : ''}\n*${esc(pr.queueEntry?.state ?? pr.state ?? 'in the queue')}* — ${etaSentence(ref, r.eta)}`;
  }
  const { pr, story } = r;
  const head = `${prHead(ref, n, pr.title, pr.htmlUrl ?? pr.url)}${pr.author ? ` by ${escTrim(pr.author, 80)}` : ''}`;
  const e = story.ending;
  let line: string;
  switch (e?.kind) {
    case 'failed': {
      line = `*It failed: ${reasonWords(e.reason) ?? 'Trunk did not say why'}.*`;
      if (e.cause === 'own') line += ' It failed on its own, not because of a PR ahead of it.';
      const checks = e.checks.slice(0, 3).map((c) => (c.url ? link(c.url, c.name) : escTrim(c.name, 120)));
      if (checks.length > 0) line += `\nChecks that failed it: ${checks.join(', ')}`;
      break;
    }
    case 'cancelled':
      line = `*It was taken out of the queue: ${reasonWords(e.reason) ?? 'Trunk did not say why'}.*`;
      break;
    case 'merged':
      line = '*It merged.*';
      break;
    default:
      line = `*${esc(pr.state ?? 'Not in the queue')}*`;
  }
  return `${head}\n${line}\n\`/mergequeue why ${n} ${esc(queueLabel(ref))}\` tells the whole story.`;
}
