/**
 * How a digest is named in words: the audit log records these, and the Slack replies show the same, so a
 * person can match what they were told with what the log says.
 */
import { formatLocalTime } from '../core/local-time.ts';
import type { DaysRule } from './schedule.ts';
import type { Subscription } from './types.ts';

/** `acme/web` on github.com, `gitlab.com/acme/web` elsewhere. */
export function repoLabel(sub: Pick<Subscription, 'repo' | 'branch'>): string {
  const r = sub.repo;
  const repo = r.host === 'github.com' ? `${r.owner}/${r.name}` : `${r.host}/${r.owner}/${r.name}`;
  // A health digest is about one queue: its branch is part of its name.
  return sub.branch === undefined ? repo : `${repo}:${sub.branch}`;
}

/** `on weekdays at 09:00 Europe/Paris`. */
export function describeSchedule(s: { minuteOfDay: number; tz: string; days: DaysRule }): string {
  const days = s.days === 'daily' ? 'every day' : s.days === 'weekly' ? 'on Mondays' : 'on weekdays';
  return `${days} at ${formatLocalTime(s.minuteOfDay)} ${s.tz}`;
}
