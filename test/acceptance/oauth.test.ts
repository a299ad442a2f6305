// Acceptance, many-workspace mode (README "Many workspaces"): install through /slack/install and
// /slack/oauth_redirect, store each workspace's Trunk token with /mergequeue connect, and never use one
// workspace's tokens for another.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStrings } from '../helpers/block-kit-reading.ts';
import { freePort, type NpmApp, newcomerEnv, npmStart, waitForHealthy } from '../helpers/processes.ts';
import { postSigned } from '../helpers/slack-requests.ts';
import { newCorr, STACK_FRAME, slashBody, viewSubmissionBody, waitForAnswer } from './answers.ts';
import { type FakeSlack, type FakeTrunk, type Json, startFakeSlack, startFakeTrunk } from './fakes.ts';

const SECRET = 'oauth-signing-secret-31337';
const CLIENT_SECRET = 'oauth-client-secret-abc987';
const T1 = 'T0ONE0001';
const T2 = 'T0TWO0002';
const T1_BOT = 'xoxb-team-one-bot-token-111';
const T2_BOT = 'xoxb-team-two-bot-token-222';
const T1_TRUNK = 'trunk-token-of-team-one-555';
const U1 = 'UINSTALL01'; // installs in T1; not a workspace admin
const U2 = 'UINSTALL02';

let slack: FakeSlack;
let trunk: FakeTrunk;
let app: NpmApp;
let dir: string;

async function install(code: string): Promise<{ status: number; body: string }> {
  const base = `http://127.0.0.1:${app.port}`;
  const r = await fetch(`${base}/slack/install`, { redirect: 'manual' });
  const where = r.status === 302 ? (r.headers.get('location') ?? '') : await r.text();
  const url =
    where.match(/https:\/\/slack\.com\/oauth\/v2\/authorize[^"'\s<>]*/)?.[0]?.replace(/&amp;/g, '&') ?? '';
  const state = new URL(url || 'https://x/').searchParams.get('state') ?? '';
  const cookie = (r.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const cb = await fetch(`${base}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`, {
    headers: cookie ? { cookie } : {},
    redirect: 'manual',
  });
  return { status: cb.status, body: await cb.text() };
}

async function cmd(team: string, user: string, text: string) {
  const corr = newCorr(user);
  const startedAt = Date.now();
  const ack = await postSigned(app, slashBody(text, corr, slack, team, user.toLowerCase()));
  return { corr, ack, startedAt };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-acceptance-oauth-'));
  slack = await startFakeSlack();
  trunk = await startFakeTrunk({ token: T1_TRUNK, orgSlug: 'acme' });
  slack.oauthCodes.set('code-one', { teamId: T1, botToken: T1_BOT, userId: U1 });
  slack.oauthCodes.set('code-two', { teamId: T2, botToken: T2_BOT, userId: U2 });
  slack.users.set(U1, { id: U1, name: 'uma', is_admin: false, is_owner: false, tz: 'UTC' });
  slack.users.set(U2, { id: U2, name: 'ulf', is_admin: false, is_owner: false, tz: 'UTC' });
  const port = await freePort();
  app = npmStart(
    newcomerEnv({
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_CLIENT_ID: '1111.2222',
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_STATE_SECRET: 'oauth-state-secret-long-random',
      ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
      SLACK_API_URL: slack.apiUrl,
      TRUNK_API_URL: trunk.url,
      DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
      PORT: String(port),
    }),
    port,
  );
  await waitForHealthy(app);
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await slack?.close();
  await trunk?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('many workspaces', () => {
  it('installing in two workspaces through /slack/install and /slack/oauth_redirect succeeds', async () => {
    const one = await install('code-one');
    expect([200, 302], one.body.slice(0, 300)).toContain(one.status);
    const two = await install('code-two');
    expect([200, 302], two.body.slice(0, 300)).toContain(two.status);
    expect(slack.calls.filter((c) => c.method === 'oauth.v2.access').length).toBe(2);
  });

  it('before connect, status says to run /mergequeue connect (and calls no Trunk)', async () => {
    const before = trunk.requests.length;
    const s = await cmd(T1, U1, 'status acme/web:main');
    expect(s.ack.status).toBe(200);
    expect(s.ack.ackMs).toBeLessThan(3000);
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /connect/i.test(t));
    expect(a.length).toBeGreaterThan(0);
    expect(trunk.requests.length).toBe(before);
  });

  let connectView: Json | undefined;
  let connectViewId = '';

  it('connect opens a modal for the trigger', async () => {
    const s = await cmd(T1, U1, 'connect');
    const a = await waitForAnswer(slack, s.corr, s.ack, (_t, ans) => ans.some((x) => x.via === 'views.open'));
    const open = a.find((x) => x.via === 'views.open')!;
    expect(open.body['trigger_id']).toBe(s.corr.trigger);
    connectView = open.body['view'] as Json;
    connectViewId = open.viewId ?? '';
  });

  it('a token Trunk rejects is refused inside the modal, and never echoed', async () => {
    const r = await postSigned(
      app,
      viewSubmissionBody(connectView!, connectViewId, U1, T1, {
        token: 'trunk-wrong-token-1234',
        orgSlug: 'acme',
        defaultRepo: '',
      }),
    );
    expect(r.status).toBe(200);
    expect(r.ackMs).toBeLessThan(3000);
    expect(r.text).toMatch(/response_action/);
    expect(r.text).toMatch(/reject|invalid|not accepted/i);
    expect(r.text).not.toContain('trunk-wrong-token-1234');
    expect(app.output()).not.toContain('trunk-wrong-token-1234');
  });

  it('with Trunk answering slowly (3.5 s) the submission is still answered within 3 s', async () => {
    trunk.latencyMs = 3500;
    try {
      const r = await postSigned(
        app,
        viewSubmissionBody(connectView!, connectViewId, U1, T1, {
          token: 'trunk-wrong-token-1234',
          orgSlug: 'acme',
          defaultRepo: '',
        }),
      );
      expect(r.status).toBe(200);
      expect(r.ackMs).toBeLessThan(3000);
      expect(r.text).toMatch(/response_action|^$/);
    } finally {
      trunk.latencyMs = 0;
    }
    await new Promise((r) => setTimeout(r, 1600)); // let the slow Trunk call finish before the next test
  });

  // The modal labels the default queue "(optional)" (input block optional: true), but leaving it empty is
  // refused: "Name a queue (owner/repo or owner/repo:branch) to check the token against."
  it('a field the connect modal marks optional can be left empty', async () => {
    const blocks = (connectView?.['blocks'] as Json[] | undefined) ?? [];
    const optional = blocks
      .filter((b) => b['type'] === 'input' && b['optional'] === true)
      .map((b) => String(b['block_id']));
    const changes: Record<string, unknown> = { token: T1_TRUNK, orgSlug: 'acme' };
    for (const id of optional) changes[id] = '';
    const sub = await postSigned(app, viewSubmissionBody(connectView!, connectViewId, U1, T1, changes));
    expect(sub.status).toBe(200);
    const errors = (JSON.parse(sub.text || '{}') as { errors?: Record<string, string> }).errors ?? {};
    expect(
      Object.keys(errors).filter((k) => optional.includes(k)),
      sub.text,
    ).toEqual([]);
  });

  it("the installer connects T1's Trunk token; T1's commands then use T1's tokens only", async () => {
    const sub = await postSigned(
      app,
      viewSubmissionBody(connectView!, connectViewId, U1, T1, {
        token: T1_TRUNK,
        orgSlug: 'acme',
        defaultRepo: 'acme/web:main',
      }),
    );
    expect(sub.status).toBe(200);
    expect(sub.ackMs).toBeLessThan(3000);
    expect(sub.text).not.toMatch(/"errors"/);
    const st = await cmd(T1, U1, 'status');
    await waitForAnswer(slack, st.corr, st.ack, (t) => /4101/.test(t), 12_000);
    const q = trunk.requests.filter((r) => r.at >= st.startedAt && r.path === '/v1/getQueue');
    expect(q.map((r) => r.token)).toEqual([T1_TRUNK]);
    const posts = slack.calls.filter((c) => c.at >= st.startedAt && c.method.startsWith('chat.'));
    for (const p of posts) expect(p.authorization).toBe(`Bearer ${T1_BOT}`);
  });

  it('with no default queue anywhere, status says how to set one', async () => {
    const clear = await cmd(T1, U1, 'config workspace clear');
    await waitForAnswer(slack, clear.corr, clear.ack, (t) => t.trim().length > 0);
    const none = await cmd(T1, U1, 'status');
    const hint = await waitForAnswer(slack, none.corr, none.ack, (t) => t.trim().length > 0);
    expect(hint.map((x) => x.text).join('\n')).toMatch(/config (channel|workspace)/);
    const cfg = await cmd(T1, U1, 'config workspace acme/web:main');
    await waitForAnswer(slack, cfg.corr, cfg.ack, (t) => /acme\/web:main/.test(t));
    const st = await cmd(T1, U1, 'status');
    await waitForAnswer(slack, st.corr, st.ack, (t) => /4101/.test(t), 12_000);
  });

  it('the installing user may change queues from the start (README), though not a workspace admin', async () => {
    const s = await cmd(T1, U1, 'pause acme/web:main install check');
    expect(s.ack.status).toBe(200);
    await waitForAnswer(slack, s.corr, s.ack, (t) => /paused|can.t|cannot/i.test(t));
    const ups = trunk.requests.filter((r) => r.at >= s.startedAt && r.path === '/v1/updateQueue');
    expect(ups.map((u) => u.body['state'])).toEqual(['paused']);
    trunk.queue['state'] = 'running';
  });

  it("T2 never gets T1's Trunk token: its status asks to connect, Slack calls use T2's bot token", async () => {
    const s = await cmd(T2, U2, 'status acme/web:main');
    expect(s.ack.status).toBe(200);
    await waitForAnswer(slack, s.corr, s.ack, (t) => /connect/i.test(t));
    expect(trunk.requests.filter((r) => r.at >= s.startedAt)).toEqual([]);
    const calls = slack.calls.filter((c) => c.at >= s.startedAt && c.method !== 'oauth.v2.access');
    for (const c of calls) expect(c.authorization).toBe(`Bearer ${T2_BOT}`);
  });

  it('no secret in Slack-bound text or in the logs; no stack traces', () => {
    const secrets = [SECRET, CLIENT_SECRET, T1_BOT, T2_BOT, T1_TRUNK];
    const slackText = [
      ...slack.calls.map(({ body: { token: _t, client_secret: _c, ...rest } }) =>
        allStrings(rest).join('\n'),
      ),
      ...slack.responses.map((r) => allStrings(r.body).join('\n')),
    ].join('\n');
    for (const s of secrets) {
      expect(slackText).not.toContain(s);
      expect(app.output()).not.toContain(s);
    }
    expect(slackText).not.toMatch(STACK_FRAME);
  });
});
