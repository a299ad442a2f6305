/**
 * The connect form's optional Trunk v2 key (issue 20), end to end: checked with one v2 read before it is
 * stored (encrypted, never echoed), a key Trunk rejects is said in its field and nothing is saved, a
 * malformed one is refused without calling Trunk, "remove" removes it, and an empty field keeps it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakes/slack/server.ts';
import { type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { stateFromView } from '../../helpers/block-kit-reading.ts';
import { v2RequestErrors } from '../../trunk/openapi-v2.ts';

const KEY = 'trunk_v2_connect_key_abc';
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

async function openConnect(): Promise<FakeView> {
  const before = h.slack.views.length;
  await h.sendCommand('connect', { user: USERS.admin });
  return h.slack.waitFor(() =>
    h.slack.views.slice(before).find((v) => v.view['callback_id'] === 'mq_connect'),
  );
}

async function submit(v2Key: string) {
  const view = await openConnect();
  const values = stateFromView(view.view);
  values['token'] = { v: { type: 'plain_text_input', value: 'connect-v1-token-1' } };
  values['orgSlug'] = { v: { type: 'plain_text_input', value: 'acme' } };
  values['defaultRepo'] = { v: { type: 'plain_text_input', value: 'acme/web:main' } };
  values['v2Key'] = { v: { type: 'plain_text_input', value: v2Key || null } };
  h.trunk.clearRequests();
  return { view, sub: await h.submitView({ view, values, user: USERS.admin }) };
}

describe('connect: the Trunk v2 key', () => {
  it('is checked with one v2 read, stored encrypted, never echoed; then why reads v2 with it', async () => {
    h.trunk.setTokens(['connect-v1-token-1']);
    h.trunk.v2.setKeys({ [KEY]: [] });
    h.trunk.addQueue('acme/web', 'main', {}, [{ prNumber: 5, state: 'testing' }]);
    const { sub } = await submit(KEY);
    expect(sub.json).toBeUndefined();
    const v2 = h.trunk.requests.filter((r) => r.path.startsWith('/v2/'));
    expect(v2).toHaveLength(1);
    expect(v2[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(v2.flatMap((r) => v2RequestErrors(r.method, r.path))).toEqual([]);
    expect(await h.app!.store.getTrunkV2Key(TEAM)).toBe(KEY);
    const raw = await h.app!.store.db.query<{ trunk_v2_key: string }>(
      'SELECT trunk_v2_key FROM workspace_settings WHERE workspace_id = $1',
      [TEAM],
    );
    expect(raw[0]!.trunk_v2_key).not.toContain(KEY);
    for (const c of h.slack.calls) expect(JSON.stringify(c.args)).not.toContain(KEY);
    const said = await h.slack.waitFor(() =>
      h.slack.ephemerals.find((e) => String(e.text).includes('v2 API key')),
    );
    expect(said.text).toContain('is stored');

    h.trunk.clearRequests();
    const sent = await h.sendCommand('why 5 acme/web:main');
    await h.reply(sent.responseUrl);
    expect(h.trunk.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('a key Trunk rejects is said in its field, and nothing is saved', async () => {
    const { sub } = await submit('trunk_v2_not_a_real_key');
    expect(sub.json).toMatchObject({
      response_action: 'errors',
      errors: { v2Key: expect.stringContaining('rejected') },
    });
    expect(JSON.stringify(sub.json)).not.toContain('trunk_v2_not_a_real_key');
    expect(await h.app!.store.getTrunkV2Key(TEAM)).toBe(KEY);
  });

  it('a value that is not a v2 key is refused without calling Trunk', async () => {
    const { sub } = await submit('connect-v1-token-1');
    expect(sub.json).toMatchObject({
      response_action: 'errors',
      errors: { v2Key: expect.stringContaining('trunk_v2_') },
    });
    expect(h.trunk.requests).toHaveLength(0);
  });

  it('an empty field keeps the stored key; "remove" removes it', async () => {
    expect((await submit('')).sub.json).toBeUndefined();
    expect(await h.app!.store.getTrunkV2Key(TEAM)).toBe(KEY);
    expect(h.trunk.requests.filter((r) => r.path.startsWith('/v2/'))).toHaveLength(0);
    expect((await submit('remove')).sub.json).toBeUndefined();
    expect(await h.app!.store.getTrunkV2Key(TEAM)).toBeUndefined();
    const audit = await h.app!.store.listAudit(TEAM, { limit: 5 });
    expect(
      audit.some((a) => a.action === 'connect.v2_key' && JSON.stringify(a.detail).includes('removed')),
    ).toBe(true);
  });
});
