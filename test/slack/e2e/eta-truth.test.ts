/**
 * ETA truth through the wire (issue 28): the estimate `eta` shows is kept; when Trunk's webhook says the PR
 * merged, its error is recorded, and `stats` shows ETA error p50/p90 and how many. Where Trunk gives no
 * estimate, `eta` gives the app's own from the queue's history and says it is the app's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMessageId, newWebhookSecret, signDelivery } from '../../../dev/fakes/trunk/index.ts';
import { etasOfPr, recordTransitions } from '../../../src/history/repository.ts';
import { durationText } from '../../../src/slack/blocks/stats.ts';
import { type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const KEY = 'trunk_v2_eta_truth';
const SECRET = newWebhookSecret();
const Q = 'github.com/acme/web:main';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { TRUNK_API_KEY: KEY, TRUNK_WEBHOOK_SECRET: SECRET } });
  h.trunk.v2.setKeys({ [KEY]: [] });
  h.trunk.addQueue('acme/web', 'main', { concurrency: 2 }, [
    { prNumber: 11, prTitle: 'Testing one', prAuthor: 'dev1', state: 'testing' },
    { prNumber: 12, prTitle: 'Waiting one', prAuthor: 'dev2', state: 'pending' },
    { prNumber: 13, prTitle: 'Waiting two', prAuthor: 'dev3', state: 'pending' },
  ]);
});
afterAll(async () => h?.close());

async function ask(text: string): Promise<string> {
  const sent = await h.sendCommand(text, { user: USERS.member });
  expect(sent.status).toBe(200);
  const post = await h.slack.waitFor(
    () =>
      h.slack
        .postsTo(sent.responseUrl)
        .find((p) => p.status === 200 && !/Reading Trunk/.test(String(p.body['text']))),
    30_000,
  );
  return textOf(post.body as { text: unknown; blocks?: unknown[] });
}

async function webhook(body: Record<string, unknown>): Promise<void> {
  const raw = JSON.stringify(body);
  const res = await fetch(`${h.url}/trunk/webhooks/${TEAM}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signDelivery(SECRET, newMessageId(), Math.floor(Date.now() / 1000), raw),
    },
    body: raw,
  });
  await res.text();
  expect(res.status).toBe(200);
}

describe('ETA truth', () => {
  it('the estimate shown is kept, and its error once the PR merged; stats shows it', async () => {
    const shownAt = Date.now();
    const estimatedAt = shownAt + 10 * 60_000;
    h.trunk.v2.setEstimate('acme/web', 12, {
      status: 'available',
      kind: 'merge',
      estimatedAt: new Date(estimatedAt).toISOString(),
    });
    expect(await ask('eta 12 acme/web:main')).toContain('Expected to merge');
    const db = h.app!.store.db;
    const kept = await etasOfPr(db, TEAM, Q, 12);
    expect(kept.map((e) => [e.source, e.surface, e.estimatedAt])).toEqual([['trunk', 'eta', estimatedAt]]);
    expect(kept[0]?.errorMs).toBeUndefined();

    // The queue is followed (a channel watches it), so Trunk's webhooks about it are applied.
    await ask('watch acme/web:main merged');
    const mergedAt = Math.ceil((Date.now() + 1_000) / 1000) * 1000;
    await webhook({
      type: 'pull_request.merged',
      action: 'merged',
      pr_number: 12,
      author: 'dev2',
      repository: { host: 'github.com', owner: 'acme', name: 'web' },
      target_branch: 'main',
      timestamp: new Date(mergedAt).toISOString(),
    });
    let settled = (await etasOfPr(db, TEAM, Q, 12))[0];
    for (let i = 0; i < 200 && settled?.errorMs === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      settled = (await etasOfPr(db, TEAM, Q, 12))[0];
    }
    expect(settled?.mergedAt).toBe(mergedAt);
    expect(settled?.errorMs).toBe(mergedAt - estimatedAt);

    while (Date.now() <= mergedAt) await new Promise((r) => setTimeout(r, 50));
    const stats = await ask('stats acme/web:main 1d');
    expect(stats).toContain(`ETA error: p50 ${durationText(Math.abs(mergedAt - estimatedAt))}`);
    expect(stats).toContain('over 1 estimate');
  }, 60_000);

  it('no estimate from Trunk: the app’s own, from the queue’s history, said to be the app’s', async () => {
    await h.reset();
    // A week of merges that tested 20 minutes each.
    const now = Date.now();
    await recordTransitions(
      h.app!.store.db,
      [1, 2, 3, 4, 5].flatMap((i) =>
        [
          { state: 'submitted' as const, at: now - i * 3_600_000 - 30 * 60_000 },
          { state: 'testing' as const, at: now - i * 3_600_000 - 20 * 60_000 },
          { state: 'merged' as const, at: now - i * 3_600_000 },
        ].map((t) => ({
          workspaceId: TEAM,
          queueKey: Q,
          prNumber: 500 + i,
          state: t.state,
          occurredAt: t.at,
          source: 'webhook' as const,
          recordedAt: now,
        })),
      ),
    );
    const text = await ask('eta 13 acme/web:main');
    expect(text).toContain("The app's own estimate, from this queue's history");
    expect(text).toContain('testing takes about 20 min, the median of 5 merged PRs');
    const kept = await etasOfPr(h.app!.store.db, TEAM, Q, 13);
    expect(kept.map((e) => e.source)).toEqual(['app']);
  }, 30_000);
});
