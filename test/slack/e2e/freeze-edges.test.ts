/**
 * Freeze windows act only as their owner would (issue 19), through the real wire: signed commands and
 * events, the freezer and the watcher running inside the app on a clock the test moves, the fake Trunk's
 * queue and the fake Slack's channels.
 * - A window's end leaves alone a queue a person changed after the window started.
 * - At each start the window's creator must still be an operator.
 * - After Slack revokes the bot token, windows stop acting and feeds stop polling until a re-install.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BOT_TOKEN, CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { installViaOAuth } from '../../helpers/oauth-install.ts';
import { sleep } from '../../helpers/processes.ts';
import { payload, postEventEnvelope } from '../../helpers/slack-payloads.ts';

const START = Date.parse('2026-06-01T10:00:00Z');
const slackDateOf = (iso: string) => `<!date^${Date.parse(iso) / 1000}^`;

describe('freeze windows act only as their owner would', () => {
  const clock = { now: START };
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      env: { SCHEDULER_ENABLED: 'true' },
      app: { clock: () => clock.now, freeze: { tickMs: 40 } },
    });
  });
  afterAll(async () => h?.close());

  beforeEach(async () => {
    clock.now = START;
    await h.reset();
    await h.app!.store.db.execute('DELETE FROM freeze_claims');
    await h.app!.store.db.execute('DELETE FROM freeze_windows');
    await h.app!.store.db.execute('DELETE FROM audit_log');
    for (const op of await h.app!.store.listOperators(TEAM))
      await h.app!.store.removeOperator(TEAM, op.kind, op.id);
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  });

  const channel = () => h.slack.channelMessages(CHANNEL);
  const posted = (re: RegExp) => h.slack.waitFor(() => channel().find((m) => re.test(textOf(m))));
  const state = () => h.trunk.queue('acme/web', 'main')!.state;
  const writes = () => h.trunkCalls('updateQueue').map((r) => String((r.body as { state?: string }).state));

  async function addWindow(rest: string, user: string = USERS.admin): Promise<string> {
    const sent = await h.sendCommand(`freeze add ${rest}`, { user });
    expect(sent.status).toBe(200);
    const message = await posted(/added freeze window/);
    const id = /`(f[a-z0-9]{5})`/.exec(textOf(message))?.[1];
    expect(id).toBeDefined();
    return id!;
  }

  async function typed(text: string, user: string, until: () => boolean): Promise<void> {
    const sent = await h.sendCommand(text, { user });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() => until() || undefined);
    await h.idle();
  }

  /** Lets the freezer tick a few times at the current clock. */
  const settle = () => sleep(300);

  it('a queue resumed for a hotfix and paused again by a person is not resumed at the window’s end; the channel is told who, when and how', async () => {
    // 12:00-13:00 in the admin's zone (Europe/London, BST) is 11:00-12:00 UTC.
    const id = await addWindow('acme/web:main 12:00-13:00 pause Release cut');
    clock.now = Date.parse('2026-06-01T11:00:02Z');
    await posted(/started/);
    expect(state()).toBe('paused');

    clock.now = Date.parse('2026-06-01T11:10:00Z');
    await typed('resume acme/web:main hotfix', USERS.owner, () => state() === 'running');
    clock.now = Date.parse('2026-06-01T11:20:00Z');
    await typed('pause acme/web:main incident', USERS.owner, () => state() === 'paused');

    clock.now = Date.parse('2026-06-01T12:00:02Z');
    const told = await posted(/not resumed/);
    const text = textOf(told);
    expect(text).toContain(id);
    expect(text).toContain(`<@${USERS.owner}>`);
    expect(text).toContain(slackDateOf('2026-06-01T11:20:00Z'));
    expect(text).toContain('/mergequeue resume acme/web:main');
    await settle();
    expect(state()).toBe('paused');
    // The window's pause, the person's resume and pause; no resume by the window.
    expect(writes()).toEqual(['paused', 'running', 'paused']);
  });

  it('a window whose creator is no longer an operator does not act at its start; the channel and the operators are told', async () => {
    await typed(`config operators add <@${USERS.operator}>`, USERS.admin, () => true);
    await typed(`config operators add <@${USERS.admin}>`, USERS.admin, () => true);
    expect((await h.app!.store.listOperators(TEAM)).map((o) => o.id)).toContain(USERS.operator);
    // Otto (UTC) adds the window while an operator, then is removed from the operators.
    const id = await addWindow('acme/web:main 11:00-12:00 drain', USERS.operator);
    await typed(`config operators remove <@${USERS.operator}>`, USERS.admin, () => true);
    expect((await h.app!.store.listOperators(TEAM)).map((o) => o.id)).not.toContain(USERS.operator);

    clock.now = Date.parse('2026-06-01T11:00:02Z');
    const told = await posted(/did not drain/);
    expect(textOf(told)).toContain(id);
    expect(textOf(told)).toContain(`<@${USERS.operator}>`);
    expect(textOf(told)).toContain('no longer an operator');
    // The listed operator hears it directly.
    const dm = await h.slack.waitFor(() =>
      h.slack.channelMessages(USERS.admin).find((m) => textOf(m).includes(id)),
    );
    expect(textOf(dm)).toContain('no longer an operator');
    await settle();
    expect(state()).toBe('running');
    expect(writes()).toEqual([]);

    // Its end has nothing to undo: no resume, no announcement.
    clock.now = Date.parse('2026-06-01T12:00:02Z');
    await settle();
    expect(writes()).toEqual([]);
    expect(channel().filter((m) => /ended|resumed/.test(textOf(m)))).toEqual([]);
  });

  it('a window whose creator is still an operator acts as before', async () => {
    await typed(`config operators add <@${USERS.operator}>`, USERS.admin, () => true);
    await addWindow('acme/web:main 11:00-12:00 drain', USERS.operator);
    clock.now = Date.parse('2026-06-01T11:00:02Z');
    await posted(/started/);
    expect(state()).toBe('draining');
  });
});

describe('after Slack revokes the bot token (OAuth)', () => {
  const OAUTH_TEAM = 'T0ACME0001';
  const INSTALLER = 'U0INSTALL1';
  const ADMIN = 'U0ADMIN001';
  const BOT = 'U0MQBOT001';
  const OAUTH_CHANNEL = 'C0ACMEWEB1';
  const clock = { now: START };
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      mode: 'oauth',
      env: { SCHEDULER_ENABLED: 'true', WATCH_INTERVAL_SECONDS: '5' },
      app: { clock: () => clock.now, freeze: { tickMs: 40 } },
      slackOptions: {
        clientId: 'client-id-1',
        clientSecret: 'client-secret-1',
        defaultTeamId: OAUTH_TEAM,
        installation: {
          teamId: OAUTH_TEAM,
          teamName: 'Acme',
          installerUserId: INSTALLER,
          botUserId: BOT,
          userToken: true,
        },
        users: [
          { id: INSTALLER, name: 'ines', teamId: OAUTH_TEAM },
          { id: ADMIN, name: 'ada', isAdmin: true, teamId: OAUTH_TEAM, tz: 'UTC' },
        ],
      },
    });
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
    expect((await installViaOAuth(h)).status).toBe(200);
    await h.app!.store.setTrunkCredentials(OAUTH_TEAM, { token: 'test-token', orgSlug: 'acme' }, INSTALLER);
  });
  afterAll(async () => h?.close());

  const state = () => h.trunk.queue('acme/web', 'main')!.state;
  /** Moves the app's clock one watch interval on and runs a watcher pass. */
  const nextInterval = async () => {
    clock.now += 5_000;
    await h.app!.events!.tick();
  };

  it('windows stop acting and feeds stop polling until a re-install, which resumes both', async () => {
    const sent = await h.sendCommand('freeze add acme/web:main 11:00-12:00 UTC pause', {
      team: OAUTH_TEAM,
      user: ADMIN,
      channel: OAUTH_CHANNEL,
    });
    expect(sent.status).toBe(200);
    const added = await h.slack.waitFor(() =>
      h.slack.channelMessages(OAUTH_CHANNEL).find((m) => /added freeze window/.test(textOf(m))),
    );
    const id = /`(f[a-z0-9]{5})`/.exec(textOf(added))![1]!;

    // Before: the queue (the workspace's default, DEFAULT_REPO) is polled.
    await nextInterval();
    await expect.poll(() => h.trunkCalls('getQueue').length).toBeGreaterThan(0);

    const revoked = payload<Record<string, unknown>>('tokens_revoked.bot');
    expect((await postEventEnvelope(h, revoked)).status).toBe(200);
    await h.idle();
    h.trunk.clearRequests();

    // The window opens, and several watch intervals pass: nothing is changed, nothing polled.
    clock.now = Date.parse('2026-06-01T11:00:02Z');
    for (let i = 0; i < 3; i++) await nextInterval();
    await sleep(300);
    expect(state()).toBe('running');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunkCalls('getQueue')).toHaveLength(0);

    // Re-installed: the open window starts (late) and the queue is polled again.
    expect((await installViaOAuth(h)).status).toBe(200);
    await h.slack.waitFor(() => (state() === 'paused' ? true : undefined));
    const started = await h.slack.waitFor(() =>
      h.slack.channelMessages(OAUTH_CHANNEL).find((m) => /started/.test(textOf(m)) && textOf(m).includes(id)),
    );
    expect(textOf(started)).toContain(id);
    await nextInterval();
    await expect.poll(() => h.trunkCalls('getQueue').length).toBeGreaterThan(0);
  });
});

describe('after Slack revokes the configured bot token (single workspace)', () => {
  const clock = { now: START };
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      env: { SCHEDULER_ENABLED: 'true' },
      app: { clock: () => clock.now, freeze: { tickMs: 40 } },
    });
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  });
  afterAll(async () => h?.close());

  it('a window does not act once Slack refuses the token as revoked', async () => {
    const sent = await h.sendCommand('freeze add acme/web:main 11:00-12:00 UTC pause', { user: USERS.admin });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() =>
      h.slack.channelMessages(CHANNEL).find((m) => /added freeze window/.test(textOf(m))),
    );
    // Slack revokes the token and says so (tokens_revoked naming the configured token's bot user).
    h.slack.revokeToken(BOT_TOKEN);
    const revoked = payload<{ team_id: string; event: { tokens: { oauth: string[]; bot: string[] } } }>(
      'tokens_revoked.bot',
    );
    revoked.team_id = TEAM;
    revoked.event.tokens = { oauth: [], bot: ['U0BOT'] };
    expect((await postEventEnvelope(h, revoked)).status).toBe(200);
    await h.idle();
    h.trunk.clearRequests();

    clock.now = Date.parse('2026-06-01T11:00:02Z');
    await h.app!.events!.tick();
    await sleep(400);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunkCalls('getQueue')).toHaveLength(0);
  });
});
