/**
 * What the Home says of Trunk v2 (issue 20): with a key, that `why` and `eta` work and where the key comes
 * from, and each of the person's queued PRs with when it should merge; without one, how to add a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakes/slack/server.ts';
import { CHANNEL, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { assertValidHome } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { v2RequestErrors } from '../../trunk/openapi-v2.ts';

const KEY = 'trunk_v2_home_key';
const homeText = (v: FakeView) => textOf({ blocks: v.view['blocks'] });
let h: Harness;
let plain: Harness;

async function command(harness: Harness, text: string) {
  const sent = await harness.sendCommand(text, { user: USERS.admin, channel: CHANNEL });
  await harness.reply(sent.responseUrl);
}

function seed(harness: Harness) {
  harness.trunk.v2.setKeys({ [KEY]: [] });
  harness.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 1 }, [
    { prNumber: 21, prTitle: 'Someone else', prAuthor: 'other', state: 'testing' },
    { prNumber: 22, prTitle: 'Ada waits', prAuthor: 'ada-gh', state: 'pending' },
  ]);
  harness.trunk.v2.setEstimate('acme/web', 22, {
    status: 'available',
    kind: 'merge',
    estimatedAt: '2026-11-20T15:00:00Z',
  });
}

beforeAll(async () => {
  [h, plain] = await Promise.all([startHarness({ env: { TRUNK_API_KEY: KEY } }), startHarness()]);
  for (const harness of [h, plain]) {
    seed(harness);
    await command(harness, `config people <@${USERS.admin}|ada> ada-gh`);
  }
});
afterAll(async () => Promise.all([h?.close(), plain?.close()]));

describe('the Home and Trunk v2', () => {
  it('with a key: v2 is on, and a queued PR shows when it should merge and what is ahead of it', async () => {
    const home = await h.openHome(USERS.admin);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toContain('*Trunk v2:* on (key from TRUNK_API_KEY)');
    expect(text).toMatch(/#22[^\n]*Ada waits[\s\S]*Expected to merge <!date\^/);
    expect(text).toContain('#21');
    const v2 = h.trunk.requests.filter((r) => r.path.startsWith('/v2/'));
    expect(v2.length).toBeGreaterThan(0);
    expect(v2.flatMap((r) => v2RequestErrors(r.method, r.path))).toEqual([]);
  });

  it('without a key: v2 is off, and how to add one', async () => {
    const home = await plain.openHome(USERS.admin);
    assertValidHome(home.view);
    const text = homeText(home);
    expect(text).toContain('*Trunk v2:* off');
    expect(text).toContain('API Keys');
    expect(text).not.toContain('Expected to merge');
    expect(plain.trunk.requests.some((r) => r.path.startsWith('/v2/'))).toBe(false);
  });
});
