/**
 * The app's Home tab through the real wire: a signed app_home_opened event_callback to /slack/events, the
 * Home the app publishes (views.publish, recorded by the fake Slack), and clicks on its buttons as Slack
 * sends them from a Home (no channel, no message, no response_url).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakes/slack/server.ts';
import { startTrunkFake, type TrunkFake } from '../../../dev/fakes/trunk/index.ts';
import { WatchRepository } from '../../../src/watch/index.ts';
import { CHANNEL, type Harness, startHarness, TEAM, TRUNK_TOKEN, USERS } from '../../helpers/app-harness.ts';
import { assertValidHome } from '../../helpers/block-kit.ts';
import { findActions, stateFromView, textOf } from '../../helpers/block-kit-reading.ts';
import { reasonModal, submitReason } from '../../helpers/reason-modal.ts';

const homeText = (v: FakeView) => textOf({ blocks: v.view['blocks'] });
const blocksOf = (v: FakeView) => (v.view['blocks'] as unknown[]) ?? [];
const buttons = (v: FakeView, actionId: string) => findActions(blocksOf(v), actionId);

async function command(h: Harness, text: string, user: string = USERS.admin, channel = CHANNEL) {
  const sent = await h.sendCommand(text, { user, channel });
  expect(sent.status).toBe(200);
  // The command's work after the ack is tracked by the app: idle means it is done.
  await h.idle();
  const answers = h.replies(sent.responseUrl).map((r) => JSON.stringify(r));
  expect(answers.join('\n')).not.toMatch(/:warning:|You can't/);
}

describe('the Home tab of a set-up workspace', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  beforeEach(async () => {
    await h.reset();
    h.trunk.reset();
    // The workspace default (DEFAULT_REPO acme/web:main) with three PRs, two of them Ada's.
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
    h.trunk.enqueuePr('acme/web', 'main', {
      prNumber: 11,
      prAuthor: 'someone',
      prTitle: 'Other work',
      state: 'testing',
    });
    h.trunk.enqueuePr('acme/web', 'main', {
      prNumber: 12,
      prAuthor: 'Ada-GH',
      prTitle: 'Faster builds',
      state: 'testing',
    });
    h.trunk.enqueuePr('acme/web', 'main', {
      prNumber: 13,
      prAuthor: 'ada-gh',
      prTitle: 'Fix login',
      state: 'pending',
    });
    h.trunk.addQueue('acme/api', 'main', { state: 'paused', concurrency: 1 });
    h.trunk.addQueue('acme/tools', 'main', { state: 'draining', concurrency: 1 });
  });

  async function setUp() {
    await command(h, `config people <@${USERS.admin}|ada> ada-gh`);
    await command(h, 'watch acme/api:main');
    await command(h, 'digest add failing acme/tools 09:00 UTC weekdays');
    await command(h, 'freeze add acme/web:main 18:00-08:00 UTC weekdays drain Nightly release');
    await command(h, `config operators add <@${USERS.operator}|otto>`);
    h.trunk.clearRequests();
    await h.reset();
  }

  it("an operator's Home: their PRs with state and position, queues with buttons, digests, watches, freeze windows, operators, Trunk", async () => {
    await setUp();
    const home = await h.openHome(USERS.admin);
    assertValidHome(home.view);
    const text = homeText(home);
    // Ada's two PRs, found through listPullRequests (login compared case-insensitively), placed in the queue.
    expect(text).toMatch(/#12[^\n]*Faster builds[^\n]*acme\/web:main[^\n]*testing[^\n]*2nd of 3/);
    expect(text).toMatch(/#13[^\n]*Fix login[^\n]*pending[^\n]*3rd of 3/);
    expect(text).not.toContain('Other work');
    // One listing per queue, no read per PR.
    expect(h.trunkCalls('listPullRequests')).toHaveLength(3);
    expect(h.trunkCalls('getSubmittedPullRequest')).toHaveLength(0);
    // The queues: the workspace default, the watched one and the digest's repository, with their states.
    expect(text).toMatch(/acme\/web:main\* · :large_green_circle: running · concurrency 2 · 3 PRs enqueued/);
    expect(text).toMatch(/acme\/api:main\* · :double_vertical_bar: paused/);
    expect(text).toMatch(/acme\/tools:main\* · :hourglass_flowing_sand: draining/);
    expect(text).toContain('workspace default');
    expect(text).toContain(`watch in <#${CHANNEL}>`);
    // The status message's buttons, per queue, as fit its state.
    expect(buttons(home, 'mq_pause')).toHaveLength(2);
    expect(buttons(home, 'mq_resume')).toHaveLength(2);
    expect(buttons(home, 'mq_refresh')).toHaveLength(3);
    expect(buttons(home, 'mq_settings_open')).toHaveLength(3);
    // Digests, watches, freeze windows, operators, Trunk.
    expect(text).toMatch(/failing tests of \*acme\/tools\* · on weekdays at 09:00 UTC/);
    expect(text).toMatch(new RegExp(`<#${CHANNEL}> \\*acme/api:main\\*: \`state\``));
    expect(text).toMatch(/acme\/web:main\* · 18:00–08:00 UTC, weekdays · drain — Nightly release/);
    expect(text).toContain('Workspace admins and owners');
    expect(text).toContain(`<@${USERS.operator}>`);
    expect(text).toContain('*Trunk:* connected (organization `acme`)');
    expect(buttons(home, 'mq_home_connect')).toHaveLength(1);
    expect(text).toContain('You are an operator');
  });

  it('a member sees the same lists and no button that changes anything', async () => {
    await setUp();
    const home = await h.openHome(USERS.member);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toContain('acme/web:main');
    expect(text).toContain('Nightly release');
    for (const id of [
      'mq_pause',
      'mq_drain',
      'mq_resume',
      'mq_concurrency_inc',
      'mq_settings_open',
      'mq_home_connect',
    ])
      expect(buttons(home, id)).toHaveLength(0);
    // Not linked: the Home says how to link.
    expect(text).toContain('`/mergequeue me github <login>`');
    expect(text).toContain('Anyone may read; operators change queues.');
  });

  it('the Messages tab sends the same event and gets no Home', async () => {
    const sent = await h.sendEvent({
      type: 'app_home_opened',
      user: USERS.admin,
      channel: 'DADMIN',
      tab: 'messages',
    });
    expect(sent.status).toBe(200);
    await h.idle();
    expect(h.homes(USERS.admin)).toHaveLength(0);
  });

  it('Pause on the Home opens the reason modal; submitted, it pauses, audits and publishes the Home again', async () => {
    const home = await h.openHome(USERS.admin);
    const triggerId = 'trigger-home-pause-1';
    const click = await h.clickHome({ home, actionId: 'mq_pause', user: USERS.admin, triggerId });
    expect(click.status).toBe(200);
    const modal = await reasonModal(h, triggerId);
    expect(homeText(modal)).toContain('acme/web:main');
    // Opening the modal changed nothing, so the Home was not published again yet.
    expect(h.homes(USERS.admin)).toHaveLength(1);
    const submit = await submitReason(h, modal, 'release day', USERS.admin);
    expect(submit.status).toBe(200);
    const after = await h.slack.waitFor(() => h.homes(USERS.admin)[1]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    const text = homeText(after);
    expect(text).toMatch(/acme\/web:main\* · :double_vertical_bar: paused/);
    // What the click would have announced is shown on top of the Home, with the reason.
    expect(text).toContain(`<@${USERS.admin}>`);
    expect(text).toContain('release day');
    // Nothing went to a channel or a message: a Home click has neither.
    expect(h.slack.callsTo('chat.update')).toHaveLength(0);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args['channel'] === '')).toHaveLength(0);
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'ok', userId: USERS.admin });
    expect(audit[0]!.detail).toMatchObject({ reason: 'release day' });
    assertValidHome(after.view);
    // Resume (a quick confirm, no modal) acts at once from the new Home and publishes it again.
    await h.clickHome({ home: after, actionId: 'mq_resume', user: USERS.admin });
    const resumed = await h.slack.waitFor(() => h.homes(USERS.admin)[2]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(homeText(resumed)).toMatch(/acme\/web:main\* · :large_green_circle: running/);
  });

  it("a member's click from a Home is refused, audited, shown on the Home, and changes nothing", async () => {
    const adminHome = await h.openHome(USERS.admin);
    // The member's own Home has no buttons; they replay the admin's button value.
    const value = String(buttons(adminHome, 'mq_pause')[0]!['value']);
    const memberHome = await h.openHome(USERS.member);
    await h.clickHome({
      home: memberHome,
      actionId: 'mq_pause',
      value,
      user: USERS.member,
      triggerId: 'trigger-home-2',
    });
    const after = await h.slack.waitFor(() => h.homes(USERS.member)[1]);
    expect(homeText(after)).toMatch(/You can't pause acme\/web:main/);
    expect(h.slack.views.filter((v) => v.triggerId === 'trigger-home-2')).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'refused', userId: USERS.member });
  });

  it('Refresh on the Home publishes it again with the queue as it is now', async () => {
    const home = await h.openHome(USERS.admin);
    h.trunk.patchQueue('acme/web', 'main', { concurrency: 5 });
    await h.clickHome({ home, actionId: 'mq_refresh', user: USERS.admin });
    const after = await h.slack.waitFor(() => h.homes(USERS.admin)[1]);
    expect(homeText(after)).toContain('concurrency 5');
  });

  it('Settings on the Home opens the settings modal for that queue', async () => {
    const home = await h.openHome(USERS.admin);
    await h.clickHome({
      home,
      actionId: 'mq_settings_open',
      user: USERS.admin,
      triggerId: 'trigger-home-settings',
    });
    const filled = await h.slack.waitFor(() => h.slack.callsTo('views.update')[0]);
    expect(String(filled.args['view'])).toContain('concurrency');
    expect(h.slack.views.filter((v) => v.triggerId === 'trigger-home-settings')).toHaveLength(1);
  });

  it('over the limits: at most 100 blocks, each list and the queues say how many more', async () => {
    const watches = new WatchRepository(h.app!.store.db);
    for (let i = 0; i < 120; i++)
      await watches.upsert({
        workspaceId: TEAM,
        channelId: `C0MANY${String(i).padStart(4, '0')}`,
        target: { repo: { host: 'github.com', owner: 'acme', name: `service-${i}` }, branch: 'main' },
        topics: ['state', 'failed', 'health'],
        createdBy: USERS.admin,
        createdAt: Date.now(),
      });
    try {
      const home = await h.openHome(USERS.admin);
      assertValidHome(home.view);
      expect(blocksOf(home).length).toBeLessThanOrEqual(100);
      const text = homeText(home);
      expect(text).toMatch(/…and \d+ more queues: `\/mergequeue status owner\/repo:branch`/);
      expect(text).toMatch(/Watches \(12\d\)/);
      expect(text).toMatch(/Queues \(12\d\)/);
      expect(text).toContain('Not read here (the Home reads the first 10 from Trunk)');
      expect(text).toMatch(/_…and \d+ more_/);
      // The Home reads a bounded number of queues from Trunk, however many there are.
      expect(h.trunkCalls('getQueue').length).toBeLessThanOrEqual(10);
    } finally {
      await h.app!.store.db.execute('DELETE FROM watch_channels WHERE workspace_id = $1', [TEAM]);
    }
  });
});

describe('the Home tab of a new workspace', () => {
  let h: Harness;

  beforeAll(async () => {
    // No DEFAULT_REPO and no Trunk token: nothing set up yet.
    h = await startHarness({
      env: { DEFAULT_REPO: undefined, TRUNK_API_TOKEN: undefined, TRUNK_ORG_SLUG: undefined },
    });
  });
  afterAll(async () => h?.close());

  it('empty states say what to type; Trunk is not connected; a member is told to ask an operator', async () => {
    const home = await h.openHome(USERS.admin);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toContain('No queues yet: `/mergequeue config workspace owner/repo:branch`');
    expect(text).toContain('No digests yet: `/mergequeue digest add failing owner/repo 09:00`');
    expect(text).toContain('Nothing watched yet: `/mergequeue watch owner/repo:branch`');
    expect(text).toContain('No freeze windows yet: `/mergequeue freeze add');
    expect(text).toContain('`/mergequeue me github <login>`');
    expect(text).toContain('*Trunk:* not connected');
    expect(buttons(home, 'mq_home_connect')).toHaveLength(1);
    const member = await h.openHome(USERS.member);
    expect(homeText(member)).toContain('Ask an operator to run `/mergequeue connect`');
    expect(buttons(member, 'mq_home_connect')).toHaveLength(0);
  });

  it('Connect on the Home opens the connect modal; submitted, Trunk is connected and the Home says so', async () => {
    const home = await h.openHome(USERS.admin);
    await h.clickHome({
      home,
      actionId: 'mq_home_connect',
      user: USERS.admin,
      triggerId: 'trigger-home-connect',
    });
    const modal = await h.slack.waitFor(() =>
      h.slack.views.find(
        (v) => v.triggerId === 'trigger-home-connect' && v.view['callback_id'] === 'mq_connect',
      ),
    );
    const values = stateFromView(modal.view);
    values['token'] = { v: { type: 'plain_text_input', value: TRUNK_TOKEN } };
    values['orgSlug'] = { v: { type: 'plain_text_input', value: 'acme' } };
    values['defaultRepo'] = { v: { type: 'plain_text_input', value: null } };
    const before = h.homes(USERS.admin).length;
    const sub = await h.submitView({ view: modal, values, user: USERS.admin });
    expect(sub.status).toBe(200);
    expect(sub.json).toBeUndefined();
    const after = await h.slack.waitFor(() => h.homes(USERS.admin)[before]);
    expect(homeText(after)).toContain('*Trunk:* connected (organization `acme`)');
    expect(homeText(after)).toContain('Connected to Trunk organization');
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toMatchObject({ orgSlug: 'acme' });
  });

  it("a member's Connect click is refused on the Home and opens nothing", async () => {
    const home = await h.openHome(USERS.member);
    await h.clickHome({
      home,
      actionId: 'mq_home_connect',
      value: 'connect',
      user: USERS.member,
      triggerId: 'trigger-home-c2',
    });
    const after = await h.slack.waitFor(
      () => h.homes(USERS.member).at(-1) !== home && h.homes(USERS.member).at(-1),
    );
    expect(homeText(after as FakeView)).toContain("You can't connect this workspace to Trunk");
    expect(h.slack.views.filter((v) => v.triggerId === 'trigger-home-c2')).toHaveLength(0);
  });
});

describe('the Home tab when Trunk fails for one queue', () => {
  let h: Harness;
  let trunk: TrunkFake;
  let proxy: Server;

  beforeAll(async () => {
    trunk = await startTrunkFake({ tokens: [TRUNK_TOKEN] });
    // Between the app and Trunk: every request about acme/broken answers 503, the rest pass through.
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      if (body.includes('"name":"broken"')) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream unavailable');
        return;
      }
      // The app may give up first (its deadline): then this answer has nobody to go to.
      try {
        const upstream = await fetch(new URL(req.url ?? '/', trunk.url), {
          method: req.method ?? 'POST',
          headers: Object.fromEntries(
            Object.entries(req.headers).filter(
              ([k]) => !['host', 'content-length', 'connection'].includes(k),
            ),
          ) as Record<string, string>,
          body,
        });
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'text/plain',
        });
        res.end(await upstream.text());
      } catch {
        if (!res.headersSent) res.writeHead(502).end();
      }
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    h = await startHarness({ trunk, env: { TRUNK_API_URL: url } });
  });
  afterAll(async () => {
    await h?.close();
    proxy?.close();
    await trunk?.close();
  });

  it('a slow Trunk: the Home is still published within its budget, each queue saying it could not be read', async () => {
    trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
    trunk.setLatency({ getQueue: 6_000 });
    try {
      const started = Date.now();
      const home = await h.openHome(USERS.admin, {});
      expect(Date.now() - started).toBeLessThan(4_500);
      expect(homeText(home)).toMatch(/acme\/web:main\* · :warning: could not read: /);
      assertValidHome(home.view);
    } finally {
      trunk.setLatency(0);
    }
  });

  it('shows "could not read" for that queue only, and the rest of the Home', async () => {
    trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
    trunk.addQueue('acme/broken', 'main', { state: 'running', concurrency: 1 });
    // Watched before Trunk began failing for it (the watch command itself reads the queue).
    await new WatchRepository(h.app!.store.db).upsert({
      workspaceId: TEAM,
      channelId: CHANNEL,
      target: { repo: { host: 'github.com', owner: 'acme', name: 'broken' }, branch: 'main' },
      topics: ['state'],
      createdBy: USERS.admin,
      createdAt: Date.now(),
    });
    const started = Date.now();
    const home = await h.openHome(USERS.admin);
    // Within the Home's budget (each Trunk call gives up after 2 s).
    expect(Date.now() - started).toBeLessThan(4_500);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toMatch(/acme\/broken:main\* · :warning: could not read: /);
    expect(text).toMatch(/acme\/web:main\* · :large_green_circle: running/);
    // Buttons only for the queue that could be read.
    expect(buttons(home, 'mq_pause')).toHaveLength(1);
    expect(text).not.toMatch(/acme\/web:main\* · :warning:/);
  });
});
