/**
 * Listeners as plain functions: Bolt's arguments with a fake request context (slack/context.ts: the actor,
 * the services, the reply), no HTTP, no Bolt App. The wire tests (test/slack/e2e/) prove the same paths
 * through signed requests; these pin what a listener takes from its context and what it answers with.
 */
import type { BlockAction, ButtonAction } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import { parseTarget, resolveTarget } from '../../../src/core/target.ts';
import type { Actor } from '../../../src/services/actor.ts';
import type { Services } from '../../../src/services/index.ts';
import { renderInvalidButton, renderNoTarget, renderNotConnected } from '../../../src/slack/blocks/errors.ts';
import { ACTIONS, encodeButtonValue } from '../../../src/slack/blocks/ids.ts';
import type { RequestContext } from '../../../src/slack/context.ts';
import type { SlackDeps } from '../../../src/slack/deps.ts';
import { type ButtonArgs, buttonListener } from '../../../src/slack/listeners/actions/button.ts';
import { type Click, readClick } from '../../../src/slack/listeners/actions/click.ts';
import { mergequeueCommand } from '../../../src/slack/listeners/commands/mergequeue.ts';
import type { Reply, RespondOptions, SlackReply } from '../../../src/slack/reply.ts';

const ACTOR = {
  workspace: { id: 'T1', install: 'single' },
  userId: 'U1',
  payloadTeamId: undefined,
  now: () => 0,
} as unknown as Actor;

/** A fake context: the services given, a reply that records what it was asked to say, counters. */
function fakeContext(services: Partial<Record<keyof Services, unknown>>) {
  const said: Array<{ reply: SlackReply; extra?: RespondOptions }> = [];
  const unexpected = () => {
    throw new Error('this listener should only respond');
  };
  const reply = {
    respond: async (r: SlackReply, extra?: RespondOptions) => {
      said.push(extra ? { reply: r, extra } : { reply: r });
      return true;
    },
    post: unexpected,
    update: unexpected,
    ephemeral: unexpected,
    tellPrivately: unexpected,
    openModal: unexpected,
    updateModal: unexpected,
    pushModal: unexpected,
    publishHome: unexpected,
    unfurl: unexpected,
  } as unknown as Reply;
  const counted: Array<Record<string, string>> = [];
  const counter = { inc: (labels: Record<string, string>) => counted.push(labels) };
  const slack = {
    logger: { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn() },
    metrics: { commands: counter, interactions: counter },
    now: () => 0,
  } as unknown as SlackDeps;
  const context = {
    actor: ACTOR,
    services: services as unknown as Services,
    reply,
    slack,
  } as RequestContext & Record<string, unknown>;
  return { context, said, counted };
}

/** The order a listener called ack and answered in. */
function acks(order: string[]) {
  return vi.fn(async () => void order.push('ack'));
}

function commandArgs(text: string, context: RequestContext, order: string[]) {
  return {
    ack: acks(order),
    command: { text, channel_id: 'C1', user_id: 'U1', team_id: 'T1', trigger_id: 'trig' },
    client: {},
    respond: vi.fn(),
    context,
  } as unknown as Parameters<typeof mergequeueCommand>[0];
}

describe('the /mergequeue command listener, with a fake context', () => {
  it('acks first, answers a typo with the usage through the reply, and counts it invalid', async () => {
    const order: string[] = [];
    const { context, said, counted } = fakeContext({});
    await mergequeueCommand(commandArgs('frobnicate', context, order));
    expect(order).toEqual(['ack']);
    expect(said).toHaveLength(1);
    expect(said[0]?.reply.text).toContain('frobnicate');
    expect(said[0]?.reply.text).toContain('Usage:');
    expect(counted).toEqual([{ name: 'invalid', outcome: 'invalid' }]);
  });

  it("asks the context's services with the context's actor, and answers a missing queue through the reply", async () => {
    const order: string[] = [];
    const locate = vi.fn(async (..._args: unknown[]) => ({ answer: 'no_target' }));
    const { context, said, counted } = fakeContext({ queue: { locate } });
    await mergequeueCommand(commandArgs('pause', context, order));
    expect(locate).toHaveBeenCalledOnce();
    expect(locate.mock.calls[0]?.[0]).toBe(ACTOR);
    expect(locate.mock.calls[0]?.[1]).toBe('C1');
    expect(said).toEqual([{ reply: renderNoTarget() }]);
    expect(counted).toEqual([{ name: 'pause', outcome: 'invalid' }]);
  });

  it('answers a failing service in words and counts the command failed', async () => {
    const order: string[] = [];
    const locate = vi.fn(async () => {
      throw new Error('database unreachable');
    });
    const { context, said, counted } = fakeContext({ queue: { locate } });
    await mergequeueCommand(commandArgs('status', context, order));
    expect(said).toHaveLength(1);
    expect(said[0]?.reply.text).not.toBe('');
    expect(counted).toEqual([{ name: 'status', outcome: 'failed' }]);
  });
});

const typed = parseTarget('acme/web:main');
const REF = resolveTarget(typed.ok ? typed.value : undefined);

function clickArgs(value: string, context: RequestContext, order: string[]): ButtonArgs {
  const body = {
    type: 'block_actions',
    user: { id: 'U1', team_id: 'T1' },
    team: { id: 'T1' },
    channel: { id: 'C1' },
    container: { channel_id: 'C1', message_ts: '1.2' },
    message: { ts: '1.2' },
    trigger_id: 'trig',
    actions: [],
  } as unknown as BlockAction;
  const action = { type: 'button', action_id: ACTIONS.refresh, value } as unknown as ButtonAction;
  return {
    ack: acks(order),
    body,
    action,
    client: {},
    respond: vi.fn(),
    context,
  } as unknown as ButtonArgs;
}

describe('a button listener, with a fake context', () => {
  const value = () =>
    encodeButtonValue({ ref: REF!, state: 'running', concurrency: 2, renderedAt: 1_700_000_000_000 });

  it('answers a value this app never produced, without asking any service or running the handler', async () => {
    const order: string[] = [];
    const handle = vi.fn(async () => 'ok');
    const { context, said, counted } = fakeContext({});
    await buttonListener(ACTIONS.refresh, readClick, handle)(clickArgs('{"t":"nope"}', context, order));
    expect(order).toEqual(['ack']);
    expect(handle).not.toHaveBeenCalled();
    expect(said).toEqual([{ reply: renderInvalidButton(), extra: { replace_original: false } }]);
    expect(counted).toEqual([{ name: ACTIONS.refresh, outcome: 'invalid' }]);
  });

  it("tells the clicker a workspace without Trunk is not connected (asked with the context's actor)", async () => {
    const order: string[] = [];
    const trunk = vi.fn(async () => undefined);
    const handle = vi.fn(async () => 'ok');
    const { context, said, counted } = fakeContext({ queue: { trunk } });
    await buttonListener(ACTIONS.refresh, readClick, handle)(clickArgs(value(), context, order));
    expect(trunk).toHaveBeenCalledWith(ACTOR);
    expect(handle).not.toHaveBeenCalled();
    expect(said).toEqual([{ reply: renderNotConnected(), extra: { replace_original: false } }]);
    expect(counted).toEqual([{ name: ACTIONS.refresh, outcome: 'invalid' }]);
  });

  it("hands the handler the click with the context's actor, services and reply, and counts its outcome", async () => {
    const order: string[] = [];
    const access = { api: {}, orgSlug: 'acme' };
    const queue = { trunk: vi.fn(async () => access) };
    let seen: Click | undefined;
    const handle = vi.fn(async (c: Click) => {
      seen = c;
      return 'noop';
    });
    const { context, said, counted } = fakeContext({ queue });
    await buttonListener(ACTIONS.refresh, readClick, handle)(clickArgs(value(), context, order));
    expect(seen?.actor).toBe(ACTOR);
    expect(seen?.services).toBe(context.services);
    expect(seen?.reply).toBe(context.reply);
    expect(seen?.trunk).toBe(access);
    expect(seen?.value.ref).toEqual(REF);
    expect(seen?.channelId).toBe('C1');
    expect(seen?.messageTs).toBe('1.2');
    expect(said).toEqual([]);
    expect(counted).toEqual([{ name: ACTIONS.refresh, outcome: 'noop' }]);
  });
});
