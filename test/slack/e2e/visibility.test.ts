/**
 * What a person can see (DESIGN, "Rules the contract promises"), through the real wire: the Home
 * (app_home_opened → views.publish) and `freeze list` show each person only the digests, watches, freeze
 * windows and queue sources of channels they can see — the rule `digest list` uses: a public channel to the
 * workspace's own people, otherwise only its members; a single-channel guest sees only their own channels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakes/slack/server.ts';
import { defaultUsers, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { assertValidHome } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const GUEST = 'UGUESTVIS1';
const PUBLIC = 'C0VISPUB01';
const PRIVATE = 'C0VISPRIV1';
const GUEST_CHANNEL = 'C0VISGST01';

let h: Harness;
const homeText = (v: FakeView) => textOf({ blocks: v.view['blocks'] });

async function command(text: string, channel: string, user: string = USERS.admin): Promise<string> {
  const sent = await h.sendCommand(text, { user, channel });
  expect(sent.status).toBe(200);
  const reply = textOf(await h.reply(sent.responseUrl));
  await h.idle();
  return reply;
}

/** A set-up step: done once the app is idle, and not refused. */
async function setUp(text: string, channel: string): Promise<void> {
  const sent = await h.sendCommand(text, { user: USERS.admin, channel });
  expect(sent.status).toBe(200);
  await h.idle();
  expect(JSON.stringify(h.replies(sent.responseUrl))).not.toMatch(/:warning:|You can't/);
}

beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: [...defaultUsers(), { id: GUEST, name: 'gus', isUltraRestricted: true }],
      channels: [
        { id: PUBLIC, name: 'web-team', members: [USERS.admin, USERS.member] },
        { id: PRIVATE, name: 'secret-project', isPrivate: true, members: [USERS.admin] },
        { id: GUEST_CHANNEL, name: 'vendor', isPrivate: true, members: [USERS.admin, GUEST] },
      ],
    },
  });
  for (const name of ['pubq', 'secretq', 'vendorq', 'privdefault'])
    h.trunk.addQueue(`acme/${name}`, 'main', { state: 'running', concurrency: 1 });
  await setUp('watch acme/pubq:main', PUBLIC);
  await setUp('freeze add acme/pubq:main 18:00-08:00 UTC weekdays drain Public nightly', PUBLIC);
  await setUp('watch acme/secretq:main', PRIVATE);
  await setUp('digest add failing acme/secretq 09:00 UTC weekdays', PRIVATE);
  await setUp('freeze add acme/secretq:main 18:00-08:00 UTC weekdays drain Secret launch', PRIVATE);
  await setUp('config channel acme/privdefault:main', PRIVATE);
  await setUp('watch acme/vendorq:main', GUEST_CHANNEL);
  await setUp('freeze add acme/vendorq:main 20:00-22:00 UTC daily pause Vendor window', GUEST_CHANNEL);
});
afterAll(async () => h?.close());

describe('the Home shows only what belongs to channels the person can see', () => {
  it('a member: the public channel, not the private ones (no watch, digest, window or queue source of theirs)', async () => {
    const home = await h.openHome(USERS.member);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toContain('acme/pubq:main');
    expect(text).toContain('Public nightly');
    for (const hidden of ['secretq', 'Secret launch', 'privdefault', 'vendorq', 'Vendor window', PRIVATE])
      expect(text).not.toContain(hidden);
    // The workspace default (DEFAULT_REPO) belongs to no channel: everyone sees it.
    expect(text).toContain('acme/web:main');
  });

  it('a single-channel guest: only their own channel', async () => {
    const home = await h.openHome(GUEST);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toContain('acme/vendorq:main');
    expect(text).toContain('Vendor window');
    for (const hidden of ['pubq', 'Public nightly', 'secretq', 'Secret launch', 'privdefault'])
      expect(text).not.toContain(hidden);
  });

  it('a member of every channel sees everything', async () => {
    const text = homeText(await h.openHome(USERS.admin));
    for (const shown of ['pubq', 'Public nightly', 'secretq', 'Secret launch', 'privdefault', 'vendorq'])
      expect(text).toContain(shown);
  });
});

describe('freeze list shows only the windows of channels the person can see', () => {
  it('a member sees the public window only', async () => {
    const text = await command('freeze list', PUBLIC, USERS.member);
    expect(text).toContain('Public nightly');
    expect(text).not.toContain('Secret launch');
    expect(text).not.toContain('Vendor window');
  });

  it('a single-channel guest sees their own channel only', async () => {
    const text = await command('freeze list', GUEST_CHANNEL, GUEST);
    expect(text).toContain('Vendor window');
    expect(text).not.toContain('Public nightly');
    expect(text).not.toContain('Secret launch');
  });

  it('a member of every channel sees every window', async () => {
    const text = await command('freeze list', PUBLIC, USERS.admin);
    for (const shown of ['Public nightly', 'Secret launch', 'Vendor window']) expect(text).toContain(shown);
  });
});
