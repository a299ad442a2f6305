/**
 * "Once" (DESIGN, issue 19): Slack retries an Events API delivery it thinks was lost — a new request, a new
 * signature and timestamp, `X-Slack-Retry-Num`, the same `event_id`. A retry of an event already handled
 * gets 200 and does nothing, on whichever replica it lands; a retry whose original was never handled
 * (answered 503 during shutdown) is handled once; a byte-identical replay of a signed request stays 401,
 * whatever headers it carries.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCallbackBody, signedHeaders } from '../../../dev/fakes/slack/signing.ts';
import {
  defaultUsers,
  type Harness,
  startHarness,
  TEAM,
  TRUNK_TOKEN,
  USERS,
} from '../../helpers/app-harness.ts';
import { usePostgresWorld } from '../../helpers/world.ts';

/** An app_home_opened delivery: its effect (a views.publish for `user`) is easy to count. */
const homeOpened = (user: string) =>
  eventCallbackBody({
    teamId: TEAM,
    event: { type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' },
  });

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/** A delivery of `body` signed at `ts` (seconds), with Slack's retry headers when `retry` is given. */
function delivery(secret: string, body: string, ts: number, retry?: number): Delivery {
  const headers: Record<string, string> = signedHeaders(secret, body, {
    timestampSeconds: ts,
    contentType: 'application/json',
  }) as unknown as Record<string, string>;
  if (retry !== undefined) {
    headers['x-slack-retry-num'] = String(retry);
    headers['x-slack-retry-reason'] = 'http_timeout';
  }
  return { body, headers };
}

async function post(url: string, d: Delivery): Promise<number> {
  const res = await fetch(`${url}/slack/events`, { method: 'POST', headers: d.headers, body: d.body });
  await res.text();
  return res.status;
}

async function ignoredCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^mergequeue_event_retries_ignored_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

const now = () => Math.floor(Date.now() / 1000);
const settle = () => new Promise((r) => setTimeout(r, 300));
const publishesFor = (h: Harness, user: string) =>
  h.slack.callsTo('views.publish').filter((c) => c.args['user_id'] === user).length;

describe('one app (SQLite)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  });
  afterAll(async () => h?.close());

  it('a retry (new signature, same event_id) of an event already handled: 200, nothing done', async () => {
    const body = homeOpened(USERS.member);
    expect(await post(h.url, delivery(h.signingSecret, body, now() - 2))).toBe(200);
    await h.slack.waitFor(() => publishesFor(h, USERS.member) === 1 || undefined);
    await h.idle();
    h.trunk.clearRequests();

    expect(await post(h.url, delivery(h.signingSecret, body, now() - 1, 1))).toBe(200);
    expect(await post(h.url, delivery(h.signingSecret, body, now(), 2))).toBe(200);
    await settle();
    await h.idle();
    expect(publishesFor(h, USERS.member)).toBe(1);
    expect(h.trunkCalls()).toHaveLength(0);
    expect(await ignoredCount(h.url)).toBe(2);
  });

  it('a byte-identical replay stays 401, whatever retry headers it carries', async () => {
    const first = delivery(h.signingSecret, homeOpened(USERS.admin), now());
    expect(await post(h.url, first)).toBe(200);
    await h.slack.waitFor(() => publishesFor(h, USERS.admin) === 1 || undefined);
    const replay = {
      body: first.body,
      headers: { ...first.headers, 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    };
    expect(await post(h.url, replay)).toBe(401);
    expect(
      await post(h.url, { ...replay, headers: { ...replay.headers, 'x-forwarded-for': '10.0.0.9' } }),
    ).toBe(401);
    await settle();
    await h.idle();
    expect(publishesFor(h, USERS.admin)).toBe(1);
  });

  it('another event (a new event_id) is handled as usual', async () => {
    await h.openHome(USERS.member);
    await h.openHome(USERS.member);
    expect(publishesFor(h, USERS.member)).toBe(3);
  });
});

const pg = await usePostgresWorld('event retries across replicas', {
  slackOptions: { users: defaultUsers() },
  trunkTokens: [TRUNK_TOKEN],
});

describe.runIf(pg.enabled)('two replicas sharing PostgreSQL', () => {
  const apps: Harness[] = [];
  let secret: string;
  beforeAll(async () => {
    pg.world.trunk.addQueue('acme/web', 'main', { state: 'running' });
    secret = randomBytes(16).toString('hex');
    const env = { SLACK_SIGNING_SECRET: secret };
    // One after the other: the first applies the migrations.
    apps.push(await pg.world.replica({ env }));
    apps.push(await pg.world.replica({ env }));
  }, 30_000);

  it('a retry delivered to the other replica does nothing', async () => {
    const [a, b] = apps as [Harness, Harness];
    const body = homeOpened(USERS.owner);
    expect(await post(a.url, delivery(secret, body, now() - 2))).toBe(200);
    await a.slack.waitFor(() => publishesFor(a, USERS.owner) === 1 || undefined);
    await a.idle();

    expect(await post(b.url, delivery(secret, body, now(), 1))).toBe(200);
    await settle();
    await b.idle();
    expect(publishesFor(a, USERS.owner)).toBe(1);
    expect(await ignoredCount(b.url)).toBe(1);
  });

  it('a retry whose original was answered 503 (shutting down) is handled once, by the other replica', async () => {
    const [a, b] = apps as [Harness, Harness];
    // Keep replica A shutting down but still listening: a piece of work in flight holds it open.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    void a.app!.lifecycle.track(() => held);
    const stopping = a.app!.stop();
    try {
      const body = homeOpened(USERS.operator);
      expect(await post(a.url, delivery(secret, body, now() - 3))).toBe(503);
      expect(await post(b.url, delivery(secret, body, now() - 2, 1))).toBe(200);
      await b.slack.waitFor(() => publishesFor(b, USERS.operator) === 1 || undefined);
      await b.idle();
      expect(await post(b.url, delivery(secret, body, now() - 1, 2))).toBe(200);
      await settle();
      await b.idle();
      expect(publishesFor(b, USERS.operator)).toBe(1);
    } finally {
      release();
      await stopping;
    }
  });
});
