/**
 * The page model is rebuilt from real Web API calls to the fake Slack (over HTTP, as the app makes them),
 * and the payloads and form checks are Slack's.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackFake, startSlackFake } from '../../../dev/fakes/slack/server.ts';
import { Conversation, type PageEvent } from '../../../dev/sandbox/conversation.ts';
import {
  actionFor,
  clientSideErrors,
  messageActionPayload,
  viewState,
  withBlockIds,
} from '../../../dev/sandbox/payloads.ts';
import { CHANNEL_ID, USERS } from '../../../dev/sandbox/people.ts';

const TOKEN = 'xoxb-conversation-test';
const op = USERS.operator.id;
const member = USERS.member.id;

describe('Conversation (page model from the fake Slack)', () => {
  let slack: SlackFake;
  let web: WebClient;
  let conv: Conversation;
  const events: PageEvent[] = [];

  beforeAll(async () => {
    slack = await startSlackFake({ channels: [{ id: CHANNEL_ID, name: 'merge-queue' }] });
    web = new WebClient(TOKEN, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
    conv = new Conversation(slack, Object.values(USERS));
    conv.subscribe((e) => events.push(e));
    void conv.follow();
  });
  afterAll(async () => {
    await conv.stop();
    await slack.close();
  });

  const respond = (url: string, body: Record<string, unknown>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('shows posted messages, their in-place updates, thread replies and deletions', async () => {
    const posted = await web.chat.postMessage({ channel: CHANNEL_ID, text: 'Queue *running*' });
    await web.chat.update({ channel: CHANNEL_ID, ts: posted.ts!, text: 'Queue *paused*' });
    await web.chat.postMessage({ channel: CHANNEL_ID, text: 'a reply', thread_ts: posted.ts! });
    conv.sync();
    const m = conv.messages.get(posted.ts!);
    expect(m).toMatchObject({ text: 'Queue *paused*', edited: true });
    expect([...conv.messages.values()].find((x) => x.text === 'a reply')?.threadTs).toBe(posted.ts);
    // A click's replace_original / delete_original through response_url acts on the channel message.
    const url = conv.responseUrl({ userId: op, messageTs: posted.ts! });
    await respond(url, { replace_original: true, text: 'Queue *draining*' });
    conv.sync();
    expect(conv.messages.get(posted.ts!)?.text).toBe('Queue *draining*');
    await respond(conv.responseUrl({ userId: op, messageTs: posted.ts! }), { delete_original: true });
    conv.sync();
    expect(conv.messages.has(posted.ts!)).toBe(false);
    expect(events.some((e) => e.type === 'msg-deleted')).toBe(true);
  });

  it('keeps ephemeral messages to their user and replaces them in place', async () => {
    await web.chat.postEphemeral({ channel: CHANNEL_ID, user: member, text: 'only Sam sees this' });
    const url = conv.responseUrl({ userId: op });
    await respond(url, {
      text: 'reply to Maya',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }],
    });
    conv.sync();
    const sam = [...conv.messages.values()].find((m) => m.text === 'only Sam sees this');
    const maya = [...conv.messages.values()].find((m) => m.text === 'reply to Maya');
    expect(sam?.ephemeralTo).toBe(member);
    expect(maya?.ephemeralTo).toBe(op);
    expect(maya?.blocks?.[0]?.['block_id']).toBe('sbx0');
    // A button on that ephemeral answers with replace_original: the same message changes.
    const count = conv.messages.size;
    await respond(conv.responseUrl({ userId: op, ephemeralTs: maya!.ts }), {
      replace_original: true,
      text: 'updated for Maya',
    });
    conv.sync();
    expect(conv.messages.size).toBe(count);
    expect(conv.messages.get(maya!.ts)).toMatchObject({ text: 'updated for Maya', edited: true });
    expect(conv.messages.get(maya!.ts)?.blocks).toBeUndefined();
  });

  it('opens modals for the user whose trigger opened them, and follows views.update and errors', async () => {
    conv.trigger(member, 'trig-member-1');
    const view = { type: 'modal', title: { type: 'plain_text', text: 'T' }, blocks: [] };
    const opened = await web.views.open({ trigger_id: 'trig-member-1', view: view as never });
    conv.sync();
    const id = opened.view!.id!;
    expect(conv.views.get(id)?.userId).toBe(member);
    await web.views.update({
      view_id: id,
      view: { ...view, title: { type: 'plain_text', text: 'T2' } } as never,
    });
    conv.sync();
    expect(conv.views.get(id)?.view['title']).toMatchObject({ text: 'T2' });
    expect(conv.applyViewResponse(id, member, { response_action: 'errors', errors: { a: 'bad' } })).toBe(
      'errors',
    );
    expect(conv.views.get(id)?.errors).toEqual({ a: 'bad' });
    expect(conv.applyViewResponse(id, member, {})).toBe('closed');
    expect(conv.views.has(id)).toBe(false);
  });

  it('reports a Slack error the app got, by method and error code', async () => {
    await web.views
      .open({ trigger_id: 'expired-1', view: { type: 'modal', blocks: [] } as never })
      .catch(() => undefined);
    conv.sync();
    const notice = events.find((e) => e.type === 'notice');
    expect(notice?.data).toEqual({
      text: 'The app called views.open and Slack answered: expired_trigger_id',
    });
  });
});

describe('payloads', () => {
  const blocks = withBlockIds([
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: 'b',
          text: { type: 'plain_text', text: 'Go' },
          value: 'v1',
          style: 'danger',
        },
        {
          type: 'static_select',
          action_id: 's',
          options: [
            { text: { type: 'plain_text', text: 'One' }, value: '1' },
            { text: { type: 'plain_text', text: 'Two' }, value: '2' },
          ],
        },
      ],
    },
    {
      type: 'input',
      block_id: 'n',
      label: { type: 'plain_text', text: 'N' },
      element: {
        type: 'number_input',
        action_id: 'v',
        is_decimal_allowed: false,
        min_value: '1',
        max_value: '10',
      },
    },
    {
      type: 'input',
      block_id: 'c',
      optional: true,
      label: { type: 'plain_text', text: 'C' },
      element: {
        type: 'checkboxes',
        action_id: 'v',
        options: [
          { text: { type: 'plain_text', text: 'A' }, value: 'a' },
          { text: { type: 'plain_text', text: 'B' }, value: 'b' },
        ],
      },
    },
    {
      type: 'input',
      block_id: 'm',
      label: { type: 'plain_text', text: 'M' },
      element: {
        type: 'static_select',
        action_id: 'v',
        option_groups: [
          {
            label: { type: 'plain_text', text: 'G' },
            options: [{ text: { type: 'plain_text', text: 'X' }, value: 'x' }],
          },
        ],
      },
    },
  ]);

  it('reports a click or a selection as Slack does', () => {
    expect(actionFor(blocks, '0.0')).toMatchObject({
      type: 'button',
      action_id: 'b',
      block_id: 'sbx0',
      value: 'v1',
      style: 'danger',
    });
    expect(actionFor(blocks, '0.1', ['2'])).toMatchObject({
      type: 'static_select',
      selected_option: { value: '2', text: { text: 'Two' } },
    });
    expect(() => actionFor(blocks, '0.1', ['9'])).toThrow(/no longer offered/);
    expect(() => actionFor(blocks, '7.0')).toThrow(/message changed/);
  });

  it('sends no message for a click on an ephemeral message, as Slack does', () => {
    const input = {
      teamId: 'T0SANDBOX1',
      teamDomain: 'sandbox',
      userId: 'U0MAYA0001',
      userName: 'maya',
      apiAppId: 'A0MQAPP001',
      channelId: 'C0MERGEQ01',
      channelName: 'mergequeue',
      message: { ts: '1.2', blocks, botUserId: 'U0MQBOT001', botId: 'B0MQBOT001', ephemeral: true },
      action: {},
      responseUrl: 'http://x/response/1',
      triggerId: 't1',
    };
    const eph = messageActionPayload(input);
    expect(eph['message']).toBeUndefined();
    expect(eph['container']).toMatchObject({ is_ephemeral: true, message_ts: '1.2' });
    const pub = messageActionPayload({ ...input, message: { ...input.message, ephemeral: false } });
    expect(pub['message']).toMatchObject({ ts: '1.2', bot_id: 'B0MQBOT001' });
  });

  it('builds view.state.values by block and action id', () => {
    expect(viewState(blocks, { '1.e': '7', '2.e': ['b'], '3.e': ['x'] })).toEqual({
      n: { v: { type: 'number_input', value: '7' } },
      c: {
        v: {
          type: 'checkboxes',
          selected_options: [{ text: { type: 'plain_text', text: 'B' }, value: 'b' }],
        },
      },
      m: {
        v: {
          type: 'static_select',
          selected_option: { text: { type: 'plain_text', text: 'X' }, value: 'x' },
        },
      },
    });
    expect(viewState(blocks, {})).toEqual({
      n: { v: { type: 'number_input', value: null } },
      c: { v: { type: 'checkboxes', selected_options: [] } },
      m: { v: { type: 'static_select', selected_option: null } },
    });
  });

  it("applies Slack's client checks: required fields, whole numbers, range", () => {
    expect(clientSideErrors(blocks, {})).toEqual({
      n: 'Please complete this required field.',
      m: 'Please complete this required field.',
    });
    expect(clientSideErrors(blocks, { '1.e': '2.5', '3.e': ['x'] })).toEqual({
      n: 'Please enter a whole number.',
    });
    expect(clientSideErrors(blocks, { '1.e': '11', '3.e': ['x'] })).toEqual({
      n: 'Please enter a number of 10 or less.',
    });
    expect(clientSideErrors(blocks, { '1.e': '10', '3.e': ['x'] })).toEqual({});
  });
});
