/**
 * Freeze windows over time, through the real wire: windows added with signed `/mergequeue freeze add`
 * commands, the freezer running inside the app (SCHEDULER_ENABLED) on a clock the test moves (createApp's
 * `clock`), the Trunk fake's queue and writes, the fake Slack's channel. Overlapping windows, a
 * daylight-saving night, and starts and ends that fell while the app was down.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type RunningApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { CHANNEL, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const clock = { now: 0 };
let h: Harness;
const apps: RunningApp[] = [];

beforeAll(async () => {
  h = await startHarness({
    env: { SCHEDULER_ENABLED: 'true' },
    app: { clock: () => clock.now, freeze: { tickMs: 40 } },
  });
});
afterAll(async () => {
  for (const a of apps) await a.stop();
  await h?.close();
});

let n = 0;
let repo = '';
beforeEach(async () => {
  await h.reset();
  // Each test its own queue, so windows and writes of earlier tests do not show.
  repo = `acme/frozen${++n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running' });
});

const said = () => h.slack.channelMessages(CHANNEL).map(textOf);
const posted = (re: RegExp) => h.slack.waitFor(() => said().find((t) => re.test(t)));
const state = () => h.trunk.queue(repo, 'main')!.state;
const writes = () =>
  h
    .trunkCalls('updateQueue')
    .filter((r) => (r.body as { repo: { name: string } }).repo.name === repo.split('/')[1])
    .map((r) => (r.body as { state: string }).state);
const at = (iso: string) => {
  clock.now = Date.parse(iso);
};

/** Adds a window on this test's queue as the admin; returns its id from the channel confirmation. */
async function addWindow(rest: string): Promise<string> {
  const before = said().length;
  const sent = await h.sendCommand(`freeze add ${repo}:main ${rest}`, { user: USERS.admin });
  expect(sent.status).toBe(200);
  const added = await h.slack.waitFor(() =>
    said()
      .slice(before)
      .find((t) => /added freeze window/.test(t)),
  );
  return /`(f[a-z0-9]{5})`/.exec(added)![1]!;
}

/** Lets the freezer tick a few times at the current clock, for checks that nothing happens. */
const ticks = () => new Promise((r) => setTimeout(r, 300));

describe('overlapping windows', () => {
  it('keep the queue frozen until the last one ends, with one pause and one resume at Trunk', async () => {
    at('2026-06-01T10:00:00Z');
    const a = await addWindow('11:00-12:00 UTC pause First');
    const b = await addWindow('11:30-13:00 UTC pause Second');

    at('2026-06-01T11:00:02Z');
    await posted(new RegExp(`${a}.*started`));
    expect(state()).toBe('paused');

    at('2026-06-01T11:30:02Z');
    const joined = await posted(new RegExp(`${b}.*started`));
    expect(joined).toContain(`Window \`${a}\` had already frozen it`);
    expect(state()).toBe('paused');

    at('2026-06-01T12:00:02Z');
    const kept = await posted(new RegExp(`${a}.*ended`));
    expect(kept).toContain(`stays frozen for \`${b}\``);
    await ticks();
    expect(state()).toBe('paused');

    at('2026-06-01T13:00:02Z');
    await posted(new RegExp(`${b}.*running again`));
    expect(state()).toBe('running');
    expect(writes()).toEqual(['paused', 'running']);
  });
});

describe('daylight saving', () => {
  it('a Paris night window over the spring-forward night ends at 06:00 summer time, and starts at 22:00 the next evening', async () => {
    // 29 March 2026: at 02:00 CET clocks in Paris go to 03:00 CEST. 22:00 CET on the 28th is 21:00 UTC;
    // 06:00 CEST on the 29th is 04:00 UTC (7 hours later, not 8); 22:00 CEST on the 29th is 20:00 UTC.
    at('2026-03-28T12:00:00Z');
    const id = await addWindow('22:00-06:00 Europe/Paris daily pause Night');

    at('2026-03-28T20:59:50Z');
    await ticks();
    expect(state()).toBe('running');
    at('2026-03-28T21:00:02Z');
    const started = await posted(new RegExp(`${id}.*started`));
    expect(started).toContain(`<!date^${Date.parse('2026-03-29T04:00:00Z') / 1000}^`);
    expect(state()).toBe('paused');

    at('2026-03-29T03:59:50Z');
    await ticks();
    expect(state()).toBe('paused');
    at('2026-03-29T04:00:02Z');
    await posted(new RegExp(`${id}.*running again`));
    expect(state()).toBe('running');

    at('2026-03-29T19:59:50Z');
    await ticks();
    expect(state()).toBe('running');
    at('2026-03-29T20:00:02Z');
    await h.slack.waitFor(() => (said().filter((t) => /started/.test(t)).length === 2 ? true : undefined));
    expect(state()).toBe('paused');
    expect(writes()).toEqual(['paused', 'running', 'paused']);
  });
});

describe('while the app was down', () => {
  it('a missed start is applied on recovery and announced as late; a missed end likewise', async () => {
    at('2026-06-02T10:00:00Z');
    const id = await addWindow('11:00-12:00 UTC drain Release');
    // The app stops before the window opens, and comes back 20 minutes into it.
    await h.app!.stop();
    at('2026-06-02T11:20:00Z');
    await ticks();
    expect(state()).toBe('running');
    const second = await restart();
    const late = await posted(new RegExp(`${id}.*started`));
    expect(late).toContain('Applied late');
    expect(late).toContain(`<!date^${Date.parse('2026-06-02T11:00:00Z') / 1000}^`);
    expect(state()).toBe('draining');

    // Down again across the end; back at 12:10.
    await second.stop();
    at('2026-06-02T12:10:00Z');
    await ticks();
    expect(state()).toBe('draining');
    await restart();
    const resumed = await posted(new RegExp(`${id}.*running again`));
    expect(resumed).toContain('Resumed late');
    expect(state()).toBe('running');
    expect(writes()).toEqual(['draining', 'running']);
  });
});

/** The app again on the same database (its store, the fakes and the clock), as after a restart. */
async function restart(): Promise<RunningApp> {
  const app = await createApp(loadConfig(h.env), {
    clock: () => clock.now,
    freeze: { tickMs: 40 },
    http: { host: '127.0.0.1' },
    logger: h.app!.logger,
  });
  apps.push(app);
  await app.start();
  return app;
}
