/**
 * Shared by the queue-watch benchmarks: reading the fake Slack's posts back into the state changes they
 * report, percentiles, Trunk request counts, and stopping child processes.
 */
import type { ChildProcess } from 'node:child_process';
import type { RecordedCall } from '../dev/fakes/slack/types.ts';
import { stopChild } from '../test/helpers/processes.ts';

export { sleep } from '../test/helpers/processes.ts';

export interface ReportedChange {
  /** The state the post says the queue went to. */
  to: string;
  /** When the fake Slack received the post. */
  at: number;
}

/**
 * Every `state <before> → <after>` a channel was told, in order. A single event says it in the text; a
 * grouped message ("2 updates") has one line per event in its blocks, so those are read instead.
 */
export function stateChangesPerChannel(posts: RecordedCall[]): Map<string, ReportedChange[]> {
  const out = new Map<string, ReportedChange[]>();
  const pattern = /state`?\s*`?(\w+)`?\s*→\s*`?(\w+)/g;
  for (const p of posts) {
    const channel = String(p.args['channel']);
    const text = String(p.args['text'] ?? '');
    const source = /\d+ updates/.test(text) ? JSON.stringify(p.args['blocks'] ?? []) : text;
    for (const m of source.matchAll(pattern))
      out.set(channel, [...(out.get(channel) ?? []), { to: m[2]!, at: p.at }]);
  }
  return out;
}

/** The q-quantile (0..1) of ascending-sorted values; 0 when there are none. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** Stops every child that is still running (SIGTERM, then SIGKILL after 10 s). */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => stopChild(c)));
}
