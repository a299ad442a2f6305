/**
 * Payload shapes Bolt lets through to the listeners (issue 10): a block_actions with no actions, no user
 * or no container, an unknown interactive type, a malformed payload field. Each signed like Slack would,
 * each answered with a quiet 200 or a 400 — never a 500, never a Trunk call or a change.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockActionsPayload, interactiveBody } from '../../../dev/fakes/slack/signing.ts';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});

/** A real Pause click's payload, then bent out of shape by `bend`. */
function pauseClick(bend: (p: Record<string, unknown>) => void): string {
  const p = blockActionsPayload({
    teamId: TEAM,
    userId: USERS.admin,
    channelId: CHANNEL,
    messageTs: '1700000000.000100',
    actionId: 'mq_pause',
    value: 'not-a-real-value',
    responseUrl: h.slack.responseUrl({ channel: CHANNEL, user: USERS.admin }),
  });
  bend(p);
  return interactiveBody(p);
}

const shapes: Array<[string, () => string]> = [
  ['block_actions with an empty actions list', () => pauseClick((p) => Object.assign(p, { actions: [] }))],
  ['block_actions without actions', () => pauseClick((p) => void delete p['actions'])],
  [
    'block_actions with actions not a list',
    () => pauseClick((p) => Object.assign(p, { actions: { action_id: 'mq_pause' } })),
  ],
  ['block_actions with a null action', () => pauseClick((p) => Object.assign(p, { actions: [null] }))],
  ['block_actions without a user', () => pauseClick((p) => void delete p['user'])],
  [
    'block_actions without container, channel or message',
    () =>
      pauseClick((p) => {
        delete p['container'];
        delete p['channel'];
        delete p['message'];
      }),
  ],
  ['block_actions without a team', () => pauseClick((p) => void delete p['team'])],
  ['an unknown interactive type', () => pauseClick((p) => Object.assign(p, { type: 'something_new' }))],
  ['a payload without a type', () => pauseClick((p) => void delete p['type'])],
  ['a payload that is not JSON', () => new URLSearchParams({ payload: '{not json' }).toString()],
  ['a payload that is JSON null', () => new URLSearchParams({ payload: 'null' }).toString()],
  ['a form body with no payload and no command', () => new URLSearchParams({ foo: 'bar' }).toString()],
];

const events: Array<[string, string]> = [
  ['an Events API body of null', 'null'],
  ['an event_callback without an event', JSON.stringify({ type: 'event_callback', team_id: TEAM })],
  [
    'an event_callback whose event has no type',
    JSON.stringify({ type: 'event_callback', team_id: TEAM, event: {} }),
  ],
];

describe('payload shapes Bolt lets through', () => {
  it.each(events)('%s: a quiet 200 or a 400, never a 500', async (_, body) => {
    const sent = await h.postSigned(body, { contentType: 'application/json' });
    expect([200, 400]).toContain(sent.status);
  });

  it.each(shapes)('%s: a quiet 200 or a 400, never a 500', async (_, body) => {
    const sent = await h.postSigned(body());
    expect([200, 400]).toContain(sent.status);
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(sent.text).not.toMatch(/stack|Error:|at .*\.ts/);
  });
});
