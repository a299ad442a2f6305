/**
 * The `stats` answer (and the health digest's body, which reuses `statsLines`/`statsCharts`): every figure
 * beside the window before, as text first (notifications, screen readers, clients without charts), then a
 * bar chart of merged and kicked PRs per day and a line chart of p50/p90 time in queue per day as Slack's
 * `data_visualization` blocks (two a message at most; 20 points a series at most, so 30 days are drawn two
 * days a point). `withoutCharts` is the same answer for when Slack refuses the charts (`invalid_blocks`).
 */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { DayFigures, QueueStats } from '../../history/stats.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, percent, queueLabel } from './format.ts';
import { context, header, section } from './kit.ts';

/** A data_visualization block (newer than @slack/types' KnownBlock). */
export interface ChartBlock {
  type: 'data_visualization';
  block_id?: string;
  title: string;
  chart: {
    type: 'bar' | 'line';
    series: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
    axis_config: { categories: string[]; x_label?: string; y_label?: string };
  };
}

export interface StatsView {
  ref: QueueRef;
  days: number;
  tz: string;
  current: QueueStats;
  previous: QueueStats;
  past: { readback: 'done' | 'busy' | 'failed'; withV2: boolean; since?: number };
}

/** A duration as people say it: `45 min`, `1 h 5 min`, `2 d 3 h`, `40 s`. */
export function durationText(ms: number | undefined): string {
  if (ms === undefined) return '—';
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  const minutes = Math.round(ms / 60_000);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Mon 23 Nov`, or `23–24 Nov` for two days: at most 20 characters (a chart label's limit). */
export function dayLabel(d: Pick<DayFigures, 'day' | 'lastDay'>): string {
  const [y, m, day] = d.day.split('-').map(Number) as [number, number, number];
  const month = MONTHS[m - 1] ?? '';
  if (d.lastDay) {
    const [, m2, day2] = d.lastDay.split('-').map(Number) as [number, number, number];
    return m2 === m ? `${day}–${day2} ${month}` : `${day} ${month}–${day2} ${MONTHS[m2 - 1] ?? ''}`;
  }
  return `${WEEKDAYS[new Date(Date.UTC(y, m - 1, day)).getUTCDay()]} ${day} ${month}`;
}

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? '' : ' (new)';
  const pct = Math.round(((now - before) / before) * 100);
  return pct === 0 ? ' (same)' : ` (${pct > 0 ? '+' : ''}${pct}%)`;
}

const was = (text: string) => ` · before: ${text}`;

/** Every figure in words, each beside the window before. */
export function statsLines(v: StatsView): string[] {
  const c = v.current;
  const p = v.previous;
  const lines = [
    `*Merged:* ${c.merged}${change(c.merged, p.merged)}${was(String(p.merged))}`,
    `*Kicked:* ${c.kicked}${c.kickRate === undefined ? '' : ` · kick rate ${percent(c.kickRate)}`}${was(
      `${p.kicked}${p.kickRate === undefined ? '' : `, ${percent(p.kickRate)}`}`,
    )} · *Cancelled:* ${c.cancelled}${was(String(p.cancelled))}`,
    `*Time in queue:* p50 ${durationText(c.timeInQueue.p50Ms)} · p90 ${durationText(c.timeInQueue.p90Ms)}${was(
      `p50 ${durationText(p.timeInQueue.p50Ms)}, p90 ${durationText(p.timeInQueue.p90Ms)}`,
    )} _(${c.timeInQueue.known} of ${c.merged} merged PRs whose whole stay is known)_`,
    `*Time testing:* p50 ${durationText(c.testing.p50Ms)}${was(durationText(p.testing.p50Ms))}`,
    // Trunk's record says nothing of past pauses: only the changes the app saw itself (a poll, a webhook, a
    // command) are counted, and the answer says so.
    `*Paused or draining:* ${durationText(c.pausedOrDrainingMs)}${was(durationText(p.pausedOrDrainingMs))} _(as this app saw the queue change)_`,
  ];
  if (c.kicksByClass.length > 0 || p.kicksByClass.length > 0)
    lines.push(
      `*Kicks by kind:* ${c.kicksByClass.map((k) => `${k.kickClass} ${k.count}`).join(' · ') || 'none'}${was(
        p.kicksByClass.map((k) => `${k.kickClass} ${k.count}`).join(', ') || 'none',
      )}`,
    );
  lines.push(
    `*Top failing checks:* ${
      c.topFailingChecks.map((t) => `${code(t.check, 60)} ${t.count}`).join(' · ') || 'none'
    }${was(p.topFailingChecks.map((t) => `${esc(t.check)} ${t.count}`).join(', ') || 'none')}`,
    `*Autopilot:* ${c.autopilot.resubmitted} re-submitted, ${c.autopilot.merged} of them merged${was(
      `${p.autopilot.resubmitted}, ${p.autopilot.merged} merged`,
    )}`,
    `*ETA error:* ${
      c.eta.count === 0
        ? 'no estimate shown has merged yet'
        : `p50 ${durationText(c.eta.p50Ms)} · p90 ${durationText(c.eta.p90Ms)} over ${c.eta.count} estimate${c.eta.count === 1 ? '' : 's'}`
    }${was(p.eta.count === 0 ? 'none' : `p50 ${durationText(p.eta.p50Ms)}, ${p.eta.count}`)}`,
  );
  return lines;
}

/** The per-day figures in words (charts' text twin). */
export function dayLines(v: StatsView): string {
  return v.current.days
    .map(
      (d) =>
        `${dayLabel(d)}: ${d.merged} merged, ${d.kicked} kicked, p50 ${durationText(d.p50Ms)}, p90 ${durationText(d.p90Ms)}`,
    )
    .join('\n');
}

const minutes = (ms: number | undefined) => (ms === undefined ? 0 : Math.round(ms / 6_000) / 10);

/** The two charts: merged and kicked per day (bar), p50/p90 time in queue per day in minutes (line). */
export function statsCharts(v: StatsView): ChartBlock[] {
  const days = v.current.days.slice(-20);
  const categories = days.map(dayLabel);
  const per = days.length > 0 && days[0]?.lastDay ? 'per 2 days' : 'per day';
  return [
    {
      type: 'data_visualization',
      block_id: 'stats_merged_kicked',
      title: `Merged and kicked ${per}`,
      chart: {
        type: 'bar',
        series: [
          { name: 'Merged', data: days.map((d, i) => ({ label: categories[i] as string, value: d.merged })) },
          { name: 'Kicked', data: days.map((d, i) => ({ label: categories[i] as string, value: d.kicked })) },
        ],
        axis_config: { categories, y_label: 'PRs' },
      },
    },
    {
      type: 'data_visualization',
      block_id: 'stats_time_in_queue',
      title: `Time in queue ${per} (minutes)`,
      chart: {
        type: 'line',
        series: [
          {
            name: 'p50',
            data: days.map((d, i) => ({ label: categories[i] as string, value: minutes(d.p50Ms) })),
          },
          {
            name: 'p90',
            data: days.map((d, i) => ({ label: categories[i] as string, value: minutes(d.p90Ms) })),
          },
        ],
        axis_config: { categories, y_label: 'minutes' },
      },
    },
  ];
}

/** What the app does not know of the past, in words; empty when it knows it all. */
export function pastNotes(v: StatsView): string[] {
  const notes: string[] = [];
  if (v.past.readback === 'busy')
    notes.push('Still reading Trunk’s record of this queue: figures of the past may still grow.');
  if (v.past.readback === 'failed')
    notes.push('Trunk’s record of this queue could not be read in full yet; it is read again shortly.');
  if (!v.past.withV2)
    notes.push(
      'Without a Trunk v2 key only when PRs merged, failed or were cancelled is known from Trunk’s record: time in queue, time testing, kick reasons and failing checks of the past come from what the app saw itself. Add a v2 key with `/mergequeue connect`.',
    );
  return notes;
}

export function renderStats(v: StatsView): SlackReply {
  const label = queueLabel(v.ref);
  const window = v.days === 1 ? 'the last day' : `the last ${v.days} days`;
  const lines = statsLines(v);
  const blocks: KnownBlock[] = [
    header(`How ${label} did: ${window}`),
    section(lines.join('\n')),
    ...(statsCharts(v) as unknown as KnownBlock[]),
    section(`*Per day*\n${dayLines(v)}`),
    context(
      `Days in your timezone (${esc(v.tz)}); “before” is the ${v.days === 1 ? 'day' : `${v.days} days`} before. Percentiles are nearest-rank over merged PRs whose whole stay the app knows.`,
      ...pastNotes(v),
    ),
  ];
  const text = [`How ${label} did: ${window}`, ...lines.map((l) => l.replaceAll('*', ''))].join('\n');
  return { text, blocks };
}

/** The same answer without the charts (Slack refused them). */
export function withoutCharts(reply: SlackReply): SlackReply {
  return {
    ...reply,
    ...(reply.blocks
      ? { blocks: reply.blocks.filter((b) => (b as { type: string }).type !== 'data_visualization') }
      : {}),
  };
}

export function renderReading(ref: QueueRef): SlackReply {
  const text = `Reading Trunk’s record of ${queueLabel(ref)}… the figures follow here in a moment.`;
  return { text, blocks: [section(`:hourglass_flowing_sand: ${esc(text)}`)] };
}
