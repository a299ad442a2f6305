/**
 * Dashboards (issue 28) through the real wire: signed `/mergequeue dashboard` and `dashboard off` commands,
 * the fake Slack's canvases (conversations.canvases.create, canvases.create, canvases.access.set,
 * canvases.edit, checked as Slack documents them), the fake Trunk's queue, and the app's own workers on a
 * clock the test moves: the watcher's poll, and the dashboards pass that edits a canvas when what it says
 * changed, at most once a minute. Who may manage one follows the feeds' rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCanvas } from '../../../dev/fakes/slack/types.ts';
import { defaultUsers, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const GUEST = 'UGUESTDASH';
const EXTERNAL = 'UEXTDASH01';
const SHARED = 'C0DASHSHRD';
const HAS_CANVAS = 'C0DASHHASC';
const clock = { now: Date.parse('2026-11-20T10:00:00Z') };

let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await startHarness({
    app: { clock: () => clock.now },
    slackOptions: {
      users: [
        ...defaultUsers(),
        { id: GUEST, name: 'gus', isRestricted: true },
        { id: EXTERNAL, name: 'xena', teamId: 'T0OTHERORG', isAdmin: true },
      ],
      channels: [
        { id: SHARED, name: 'with-vendor', isShared: true },
        { id: HAS_CANVAS, name: 'has-canvas', hasCanvas: true },
      ],
    },
  });
});
afterAll(async () => h?.close());

function fresh() {
  n++;
  const repo = `acme/dash${n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running', concurrency: 2 });
  h.trunk.enqueuePr(repo, 'main', {
    prNumber: 11,
    prTitle: 'Faster builds',
    prAuthor: 'ada',
    state: 'testing',
  });
  h.trunk.enqueuePr(repo, 'main', { prNumber: 12, prTitle: 'Fix login', prAuthor: 'bob', state: 'pending' });
  return { repo, target: `${repo}:main`, channel: `C0DASH${String(n).padStart(4, '0')}` };
}

async function command(text: string, user: string, channel: string): Promise<string> {
  const sent = await h.sendCommand(text, { user, channel });
  expect(sent.status).toBe(200);
  const reply = await h.reply(sent.responseUrl);
  await h.idle();
  return textOf(reply);
}

const canvasesIn = (channel: string): FakeCanvas[] =>
  h.slack.canvases.filter((c) => c.channelId === channel || c.access.some((a) => a.channelId === channel));
/** The watcher polls (the clock moves an interval), then the dashboards pass runs. */
async function passes(seconds = 21) {
  clock.now += seconds * 1000;
  await h.app!.events!.tick();
  await h.app!.dashboards.tick();
  await h.idle();
}
const announcements = (channel: string) =>
  h.slack
    .channelMessages(channel)
    .map((m) => textOf(m))
    .filter((t) => /dashboard of/.test(t));

describe('dashboard', () => {
  it("creates the channel's canvas with the queue's state, its PRs in order and the last 7 days", async () => {
    const q = fresh();
    const reply = await command(`dashboard ${q.target}`, USERS.member, q.channel);
    expect(reply).toContain(`The dashboard of ${q.target} is in this channel's canvas`);
    const [canvas] = canvasesIn(q.channel);
    expect(canvas).toBeDefined();
    expect(canvas!.channelCanvas).toBe(true);
    const md = canvas!.markdown;
    expect(md).toContain(`# Merge queue ${q.target}`);
    expect(md).toContain('**State:** running · **PRs in the queue:** 2');
    expect(md).toMatch(
      /\| 1 \| #11 Faster builds \| ada \| testing \|\n\| 2 \| #12 Fix login \| bob \| pending \|/,
    );
    expect(md).toContain('## Last 7 days');
    expect(md).toContain('- Merged: 0');
    expect(announcements(q.channel)).toEqual([
      expect.stringContaining(`<@${USERS.member}> started a dashboard of *${q.target}*`),
    ]);
    // Asking again makes no second canvas.
    expect(await command(`dashboard ${q.target}`, USERS.admin, q.channel)).toContain(
      'already has a dashboard',
    );
    expect(canvasesIn(q.channel)).toHaveLength(1);
  });

  it('is edited after a change, not more than once a minute, and not when nothing changed', async () => {
    const q = fresh();
    await command(`dashboard ${q.target}`, USERS.member, q.channel);
    const canvas = canvasesIn(q.channel)[0]!;
    const created = clock.now;
    // The watcher's first poll of the queue says the same: nothing to edit.
    await passes();
    expect(canvas.edits).toHaveLength(1); // the first drawing, at creation
    h.trunk.enqueuePr(q.repo, 'main', {
      prNumber: 13,
      prTitle: 'Dark mode',
      prAuthor: 'cy',
      state: 'pending',
    });
    await passes();
    // Changed, but the minute since the last edit has not passed.
    expect(canvas.edits).toHaveLength(1);
    expect(canvas.markdown).not.toContain('#13');
    await passes(20);
    expect(canvas.markdown).toContain('| 3 | #13 Dark mode | cy | pending |');
    expect(canvas.edits).toHaveLength(2);
    // The edit came with the first pass a minute after the last edit (created + 62 s), not before.
    expect(clock.now - created).toBe(62_000);
    // Nothing changed: no edit, however long.
    await passes(90);
    await passes(90);
    expect(canvas.edits).toHaveLength(2);
    expect(h.slack.callsTo('canvases.edit').filter((c) => c.args['canvas_id'] === canvas.id)).toHaveLength(2);
  });

  it('where the channel has its canvas already, shares a standalone canvas with the channel', async () => {
    const q = fresh();
    const reply = await command(`dashboard ${q.target}`, USERS.member, HAS_CANVAS);
    expect(reply).toContain('a canvas shared with this channel');
    const made = h.slack.canvases.filter((c) => c.access.some((a) => a.channelId === HAS_CANVAS));
    expect(made).toHaveLength(1);
    expect(made[0]!.channelCanvas).toBe(false);
    expect(made[0]!.access).toEqual([{ channelId: HAS_CANVAS, level: 'read' }]);
    expect(made[0]!.markdown).toContain(`# Merge queue ${q.target}`);
    await command(`dashboard off ${q.target}`, USERS.member, HAS_CANVAS);
  });

  it('is stopped by `dashboard off`, announced, and no longer edited', async () => {
    const q = fresh();
    await command(`dashboard ${q.target}`, USERS.member, q.channel);
    const canvas = canvasesIn(q.channel)[0]!;
    expect(await command('dashboard off', USERS.operator, q.channel)).toContain(
      `The dashboard of ${q.target} is stopped`,
    );
    expect(announcements(q.channel)[1]).toContain(
      `<@${USERS.operator}> stopped the dashboard of *${q.target}*`,
    );
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 14, prTitle: 'Later', prAuthor: 'cy', state: 'pending' });
    await passes(61);
    await passes(61);
    expect(canvas.markdown).not.toContain('#14');
    expect(await command('dashboard off', USERS.operator, q.channel)).toContain('has no dashboard');
  });

  it('guests and people of other organizations are refused, audited, and nothing is made', async () => {
    const q = fresh();
    const guest = await command(`dashboard ${q.target}`, GUEST, q.channel);
    expect(guest).toContain(`You can't start a dashboard of ${q.target} in this channel`);
    expect(guest).toContain('guests do not manage channel feeds');
    const outsider = await command(`dashboard ${q.target}`, EXTERNAL, q.channel);
    expect(outsider).toContain("only the workspace's own people manage channel feeds");
    expect(canvasesIn(q.channel)).toHaveLength(0);
    expect(announcements(q.channel)).toHaveLength(0);
    // Nor may they stop one.
    await command(`dashboard ${q.target}`, USERS.member, q.channel);
    expect(await command('dashboard off', GUEST, q.channel)).toContain("You can't stop the dashboard");
    const audit = await h.app!.store.listAudit(TEAM, { limit: 20 });
    const refusals = audit.filter(
      (a) => (a.userId === GUEST || a.userId === EXTERNAL) && a.outcome === 'refused',
    );
    expect(refusals.map((a) => a.action).sort()).toEqual(['dashboard', 'dashboard', 'dashboard.off']);
  });

  it('in a Slack Connect channel only operators start one', async () => {
    const q = fresh();
    expect(await command(`dashboard ${q.target}`, USERS.member, SHARED)).toContain(
      'this channel is shared with another organization',
    );
    expect(await command(`dashboard ${q.target}`, USERS.admin, SHARED)).toContain('The dashboard of');
  });

  it('answers bad input with the form to type', async () => {
    expect(await command('dashboard acme/web:main extra', USERS.member, 'C0DASHBAD1')).toContain(
      'takes at most one queue',
    );
  });
});
