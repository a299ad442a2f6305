/** Digest subscriptions made straight in the store for benchmarks: `count` channels, all due at `due`. */
import { SubscriptionRepository } from '../src/digest/repository.ts';
import type { Db } from '../src/store/types.ts';

const MINUTE = 60_000;

export async function addDueDigests(
  db: Db,
  o: {
    workspaceId: string;
    repo: { host: string; owner: string; name: string };
    channels: string[];
    due: number;
  },
): Promise<void> {
  const subs = new SubscriptionRepository(db);
  const at = new Date(o.due);
  for (const channelId of o.channels)
    await subs.insert({
      workspaceId: o.workspaceId,
      channelId,
      kind: 'failing',
      repo: o.repo,
      minuteOfDay: at.getUTCHours() * 60 + at.getUTCMinutes(),
      tz: 'UTC',
      days: 'daily',
      skipEmpty: true,
      topN: 10,
      createdBy: 'UBENCH',
      createdAt: o.due - 60 * MINUTE,
      nextDueAt: o.due,
    });
}

/** The next whole minute at least `leadMs` from `now`. */
export function nextMinute(now: number, leadMs: number): number {
  return Math.ceil((now + leadMs) / MINUTE) * MINUTE;
}
