/**
 * Freeze windows through the real wire: signed `/mergequeue freeze …` commands, the freezer running inside
 * the app (SCHEDULER_ENABLED) on a clock the test moves (createApp's `now`), the fake Trunk's queue state
 * and the fake Slack's channel messages. The person's time zone comes from users.info (the admin is in
 * Europe/London, UTC+1 in June).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import {
  CHANNEL,
  type Harness,
  postStatusMessage,
  startHarness,
  TEAM,
  USERS,
} from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const START = Date.parse('2026-06-01T10:00:00Z');
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
  // Each test starts its clock at START again: older entries would read as newer than this test's.
  await h.app!.store.db.execute('DELETE FROM audit_log');
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});

const channel = () => h.slack.channelMessages(CHANNEL);
const posted = (re: RegExp) => h.slack.waitFor(() => channel().find((m) => re.test(textOf(m))));
const state = () => h.trunk.queue('acme/web', 'main')!.state;
/** This test's audit entry of an action (the clock stands still, so entries share their time). */
const audited = async (action: string) =>
  (await h.app!.store.listAudit(TEAM, { limit: 50 })).find((e) => e.action === action);

/** Sends a command and returns its ephemeral answer (through response_url). */
async function ask(text: string, user: string = USERS.admin): Promise<string> {
  const sent = await h.sendCommand(text, { user });
  expect(sent.status).toBe(200);
  return textOf(await h.reply(sent.responseUrl));
}

/** Adds a window as the admin; returns its id from the channel confirmation. */
async function addWindow(rest: string): Promise<{ id: string; message: FakeMessage }> {
  const sent = await h.sendCommand(`freeze add ${rest}`, { user: USERS.admin });
  expect(sent.status).toBe(200);
  const message = await posted(/added freeze window/);
  const id = /`(f[a-z0-9]{5})`/.exec(textOf(message))?.[1];
  expect(id).toBeDefined();
  return { id: id!, message };
}

describe('freeze add, then the freezer', () => {
  it('drains the queue at the start with the reason announced, and resumes it at the end', async () => {
    // 12:00-13:00 in the admin's Slack zone (Europe/London, BST) is 11:00-12:00 UTC today.
    const { id, message } = await addWindow('acme/web:main 12:00-13:00 drain Release cut');
    expect(textOf(message)).toContain('Europe/London');
    expect(textOf(message)).toContain(`<!date^${Date.parse('2026-06-01T11:00:00Z') / 1000}^`);
    const added = await audited('freeze_add');
    expect(added).toMatchObject({ action: 'freeze_add', outcome: 'ok', userId: USERS.admin });
    expect(added!.detail).toMatchObject({ window: id, tz: 'Europe/London', reason: 'Release cut' });
    expect(state()).toBe('running');

    clock.now = Date.parse('2026-06-01T11:00:02Z');
    const started = await posted(/started/);
    expect(state()).toBe('draining');
    expect(textOf(started)).toContain(id);
    expect(textOf(started)).toContain('Release cut');
    // The change went through the queue domain: audited under the window's creator, with its reason.
    const drain = await audited('drain');
    expect(drain).toMatchObject({ outcome: 'ok', userId: USERS.admin });
    expect(String(drain!.detail?.['reason'])).toContain('Release cut');

    clock.now = Date.parse('2026-06-01T12:00:02Z');
    await posted(/running again/);
    expect(state()).toBe('running');
  });

  it('a queue someone paused during the window is not resumed, and the channel is told who and why', async () => {
    const { id } = await addWindow('acme/web:main 12:00-13:00 drain');
    clock.now = Date.parse('2026-06-01T11:00:02Z');
    await posted(/started/);
    await h.sendCommand('pause acme/web:main incident', { user: USERS.owner });
    await h.slack.waitFor(() => state() === 'paused' || undefined);
    clock.now = Date.parse('2026-06-01T12:00:02Z');
    const told = await posted(/not resumed/);
    expect(textOf(told)).toContain(id);
    expect(textOf(told)).toContain(`<@${USERS.owner}>`);
    expect(textOf(told)).toContain('/mergequeue resume acme/web:main');
    expect(state()).toBe('paused');
  });
});

describe('freeze commands', () => {
  it("a member's freeze add is refused privately, audited, and adds nothing", async () => {
    const answer = await ask('freeze add acme/web:main 12:00-13:00 drain', USERS.member);
    expect(answer).toContain("can't add a freeze window on acme/web:main");
    const entry = await audited('freeze_add');
    expect(entry).toMatchObject({ action: 'freeze_add', outcome: 'refused', userId: USERS.member });
    expect(await ask('freeze list', USERS.member)).toContain('No freeze windows');
    expect(channel()).toHaveLength(0);
  });

  it('bad input says what was wrong and what to type, and changes nothing', async () => {
    expect(await ask('freeze add 25:00-26:00')).toMatch(/"25:00" is not a time of day.*HH:MM/s);
    expect(await ask('freeze add 12:00-13:00 Mars/Olympus')).toContain('not a time zone I know');
    expect(await ask('freeze add 12:00-13:00 weekday')).toContain('did you mean `weekdays`');
    expect(await ask('freeze remove nope')).toContain('is not a freeze window id');
    expect(await ask('freeze melt')).toContain('/mergequeue freeze list');
    expect(await ask('freeze remove f00000')).toContain('There is no freeze window');
    expect(await ask('freeze list')).toContain('No freeze windows');
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('freeze list shows each window with its next start and end as Slack dates', async () => {
    const { id } = await addWindow('acme/web:main 18:00-08:00 Europe/Paris weekdays pause Nightly');
    const list = await ask('freeze list', USERS.member);
    expect(list).toContain(id);
    expect(list).toContain('18:00–08:00 Europe/Paris, weekdays');
    expect(list).toContain('Nightly');
    // Monday 1 June 2026, 18:00 in Paris (UTC+2) is 16:00 UTC; it ends Tuesday 08:00 Paris.
    expect(list).toContain(`<!date^${Date.parse('2026-06-01T16:00:00Z') / 1000}^`);
    expect(list).toContain(`<!date^${Date.parse('2026-06-02T06:00:00Z') / 1000}^`);
  });

  it('freeze skip skips only the next occurrence, is audited, and the list says so', async () => {
    const { id } = await addWindow('acme/web:main 18:00-20:00 UTC daily drain');
    await h.sendCommand(`freeze skip ${id}`, { user: USERS.admin });
    const skipped = await posted(/skipped the next occurrence/);
    expect(textOf(skipped)).toContain(`<!date^${Date.parse('2026-06-02T18:00:00Z') / 1000}^`);
    const entry = await audited('freeze_skip');
    expect(entry).toMatchObject({ action: 'freeze_skip', outcome: 'ok', userId: USERS.admin });
    expect(await ask('freeze list')).toContain(`next: <!date^${Date.parse('2026-06-02T18:00:00Z') / 1000}^`);
    expect(await ask(`freeze skip ${id}`)).toContain('already skipped');
  });

  it('freeze remove deletes the window, is audited and announced', async () => {
    const { id } = await addWindow('acme/web:main 12:00-13:00 drain');
    await h.sendCommand(`freeze remove ${id}`, { user: USERS.admin });
    await posted(/removed freeze window/);
    const entry = await audited('freeze_remove');
    expect(entry).toMatchObject({
      action: 'freeze_remove',
      outcome: 'ok',
      target: 'acme/web:main',
    });
    expect(await ask('freeze list')).toContain('No freeze windows');
    expect(await ask(`freeze remove ${id}`, USERS.member)).toContain("can't remove freeze window");
  });

  it('the window uses the channel default when no queue is typed', async () => {
    await h.sendCommand('config channel acme/api:release', { user: USERS.admin });
    await h.slack.waitFor(() => h.slack.responsePosts.length > 0 || undefined);
    const { message } = await addWindow('12:00-13:00');
    expect(textOf(message)).toContain('acme/api:release');
  });

  it('the status message shows the next window, then the open one', async () => {
    const { id } = await addWindow('acme/web:main 12:00-13:00 drain Release cut');
    const msg = await postStatusMessage(h);
    expect(textOf(msg)).toContain(`Next freeze window \`${id}\``);
    clock.now = Date.parse('2026-06-01T11:00:02Z');
    await posted(/started/);
    const now = await postStatusMessage(h);
    expect(textOf(now)).toMatch(
      new RegExp(
        `Freeze window \`${id}\` is on \\(drain\\) until <!date\\^${Date.parse('2026-06-01T12:00:00Z') / 1000}`,
      ),
    );
  });

  it('help lists freeze, and `freeze` alone explains it', async () => {
    expect(await ask('help')).toContain('/mergequeue freeze add');
    expect(await ask('freeze')).toContain('A freeze window drains');
  });
});
