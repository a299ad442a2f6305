/**
 * Many people at once, for the Trunk budget's wire tests and benchmark (issue 19): a workspace with ten
 * watched queues and twenty people linked to GitHub logins, set up through signed commands (so it works
 * with the app in its own process), and the busiest second of what reached the fake Trunk.
 */
import { READ_CACHE_TTL_MS } from '../../src/trunk/read-cache.ts';
import { defaultUsers, type Harness, type Sent, USERS } from './app-harness.ts';

export const PEOPLE = Array.from({ length: 20 }, (_, i) => `U0PEOPLE${String(i).padStart(2, '0')}`);
export const LOAD_QUEUES = 10;

/** The harness's people plus twenty more, for startHarness's `slackOptions.users`. */
export const manyUsers = () => [
  ...defaultUsers(),
  ...PEOPLE.map((id, i) => ({ id, name: `person${i}`, tz: 'UTC' })),
];

/**
 * The most requests that arrived within any half-open window [t, t + 1 s − jitterMs): jitterMs allows for
 * arrival stamps made late by a busy event loop.
 */
export function busiestSecond(times: number[], jitterMs = 0): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[j] as number) <= (sorted[i] as number) - (1_000 - jitterMs)) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** A command, and its answer (a reply to the person or a channel message). */
export async function commandDone(
  h: Harness,
  text: string,
  channel: string,
  user = USERS.admin,
): Promise<Sent> {
  const before = h.slack.channelMessages(channel).length;
  const sent = await h.sendCommand(text, { user, channel });
  if (sent.status !== 200) throw new Error(`${text}: answered ${sent.status}`);
  await h.slack.waitFor(
    () =>
      h.replies(sent.responseUrl).length > 0 || h.slack.channelMessages(channel).length > before || undefined,
    15_000,
  );
  return sent;
}

/**
 * Ten queues acme/q0…q9 (each with one PR by dev0), each watched by its own channel, the workspace default
 * acme/web:main, and `people` linked to dev0, dev1, … by an admin. Then waits until what the set-up's
 * commands read has left the app's read cache (5 s), so what follows starts cold.
 */
export async function peopleAndQueues(h: Harness, people: readonly string[] = PEOPLE): Promise<void> {
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  for (let i = 0; i < LOAD_QUEUES; i++) {
    h.trunk.addQueue(`acme/q${i}`, 'main', { state: 'running' }, [{ prNumber: 100 + i, prAuthor: 'dev0' }]);
    await commandDone(h, `watch acme/q${i}:main`, `C0Q${String(i).padStart(7, '0')}`);
  }
  for (const [i, userId] of people.entries())
    await commandDone(h, `config people <@${userId}|person${i}> dev${i}`, 'C0SETUP001');
  await new Promise((r) => setTimeout(r, READ_CACHE_TTL_MS + 500));
  h.trunk.clearRequests();
}

/** A metric's value from the app's /metrics (0 when absent). */
export async function metricValue(h: Harness, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
