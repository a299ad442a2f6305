/**
 * The connect form answers within Slack's 3 s, or saves nothing: with a slow user lookup (users.info)
 * and a slow Trunk check the pre-answer work is budgeted from the request's arrival.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, USERS } from '../helpers/app-harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { TRUNK_API_TOKEN: undefined, TRUNK_ORG_SLUG: undefined } });
  h.trunk.setTokens(['slow-trunk-token-1', 'slow-trunk-token-2']);
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
  h.slack.setLatency(0);
  h.trunk.setLatency(0);
});

/** Each test submits as a different admin: user lookups are cached for a minute. */
function submitConnect(token: string, user: string) {
  return h.submitView({
    callbackId: 'mq_connect',
    privateMetadata: '',
    user,
    values: {
      token: { v: { type: 'plain_text_input', value: token } },
      orgSlug: { v: { type: 'plain_text_input', value: 'acme' } },
      defaultRepo: { v: { type: 'plain_text_input', value: 'acme/web:main' } },
    },
  });
}

describe('connect form under slow Slack and Trunk', () => {
  it('slow users.info and slow Trunk: answers inside 3 s with an error, and saves nothing', async () => {
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
    h.slack.setLatency(1_500, 'users.info');
    h.trunk.setLatency({ getQueue: 1_500 });
    const sub = await submitConnect('slow-trunk-token-1', USERS.admin);
    expect(sub.status).toBe(200);
    expect(sub.ackMs).toBeLessThan(3_000);
    expect(sub.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(sub.json)).toMatch(/not saved/);
    // Whatever was still running when the answer went out must not store the token afterwards.
    await new Promise((r) => setTimeout(r, 2_000));
    await h.idle();
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toBeUndefined();
  });

  it('with the same slow lookup alone it still saves, inside 3 s', async () => {
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
    h.slack.setLatency(1_500, 'users.info');
    const sub = await submitConnect('slow-trunk-token-2', USERS.owner);
    expect(sub.ackMs).toBeLessThan(3_000);
    expect(JSON.stringify(sub.json ?? {})).toBe('{}');
    expect((await h.app!.store.getTrunkCredentials(TEAM))?.token).toBe('slow-trunk-token-2');
  });
});
