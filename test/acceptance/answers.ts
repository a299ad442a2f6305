// The acceptance suite's view of a conversation with the app: each command gets its own channel,
// response_url and trigger_id (a "correlation"), so the answers to it can be picked out of everything the
// independent fake Slack (./fakes.ts) recorded, whichever way the app chose to answer (the ack, the
// response_url, chat.* or a modal). Signing, sending and reading Block Kit are the shared helpers'
// (test/helpers); only the correlation is this suite's own.
import {
  blockActionsPayload,
  interactiveBody,
  slashCommandBody,
  viewSubmissionPayload,
} from '../../dev/fakes/slack/signing.ts';
import { type Button, stateFromView, visibleText } from '../helpers/block-kit-reading.ts';
import { sleep } from '../helpers/processes.ts';
import { clickOn, type Sent } from '../helpers/slack-requests.ts';
import type { FakeSlack, Json, SlackCall } from './fakes.ts';

/** Slack's app id in this suite's payloads. */
const APP_ID = 'A0ACCEPT';

export interface Corr {
  id: string;
  channel: string;
  trigger: string;
  user: string;
}

let seq = 0;
export function newCorr(user: string): Corr {
  seq += 1;
  const n = `${Date.now().toString(36)}${seq}`.toUpperCase();
  return { id: `r${n}`, channel: `C${n}`, trigger: `${seq}.${Date.now()}.trig${n}`, user };
}

const actor = (teamId: string, userId: string, userName: string) => ({
  teamId,
  userId,
  userName,
  teamDomain: 'acme',
  apiAppId: APP_ID,
});

/** A slash command in the correlation's channel, answered through its response_url. */
export function slashBody(
  text: string,
  corr: Corr,
  fake: FakeSlack,
  teamId: string,
  userName: string,
): string {
  return slashCommandBody({
    ...actor(teamId, corr.user, userName),
    text,
    channelId: corr.channel,
    channelName: `chan-${corr.channel.toLowerCase()}`,
    responseUrl: fake.responseUrl(corr.id),
    triggerId: corr.trigger,
  });
}

export interface Answer {
  via: string; // 'ack' | 'response_url' | Slack method name
  body: Json;
  text: string;
  ts?: string;
  /** For a modal the app opened: the id the fake Slack gave it (submissions name it). */
  viewId?: string;
}

export function answerFromAck(ack: Sent): Answer | undefined {
  if (!ack.text.trim()) return undefined;
  try {
    const body = JSON.parse(ack.text) as Json;
    const text = visibleText(body).join('\n');
    return text.trim() ? { via: 'ack', body, text } : undefined;
  } catch {
    return { via: 'ack', body: { text: ack.text }, text: ack.text };
  }
}

export function answersFor(fake: FakeSlack, corr: Corr, ack?: Sent): Answer[] {
  const out: Answer[] = [];
  if (ack) {
    const a = answerFromAck(ack);
    if (a) out.push(a);
  }
  for (const r of fake.responses) {
    if (r.id === corr.id)
      out.push({ via: 'response_url', body: r.body, text: visibleText(r.body).join('\n') });
  }
  for (const c of fake.calls) {
    if (isForCorr(c, corr)) {
      const a: Answer = { via: c.method, body: c.body, text: visibleText(c.body).join('\n') };
      if (c.ts) a.ts = c.ts;
      if (c.viewId) a.viewId = c.viewId;
      out.push(a);
    }
  }
  return out;
}

function isForCorr(c: SlackCall, corr: Corr): boolean {
  if (c.method.startsWith('chat.')) return c.body['channel'] === corr.channel;
  if (c.method === 'views.open' || c.method === 'views.push') return c.body['trigger_id'] === corr.trigger;
  return false;
}

export async function waitForAnswer(
  fake: FakeSlack,
  corr: Corr,
  ack: Sent | undefined,
  pred: (text: string, answers: Answer[]) => boolean,
  timeoutMs = 10_000,
): Promise<Answer[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answers = answersFor(fake, corr, ack);
    const text = answers.map((a) => a.text).join('\n');
    if (answers.length > 0 && pred(text, answers)) return answers;
    if (Date.now() > deadline) {
      throw new Error(
        `no matching answer within ${timeoutMs} ms; ack=${ack ? `${ack.status} ${ack.text.slice(0, 500)}` : '-'}; answers so far:\n` +
          JSON.stringify(answers, null, 1).slice(0, 4000),
      );
    }
    await sleep(60);
  }
}

let clickSeq = 0;

/** A block_actions payload as Slack sends it when a user clicks a button on an answer. */
export function clickBody(
  button: Button,
  answer: Answer,
  corr: Corr,
  fake: FakeSlack,
  teamId: string,
  userName: string,
): string {
  const ts = answer.ts ?? `${Math.floor(Date.now() / 1000)}.000100`;
  const message = {
    channel: corr.channel,
    ts,
    text: answer.body['text'] ?? '',
    blocks: answer.body['blocks'],
  };
  const input = clickOn(actor(teamId, corr.user, userName), message, button, {
    responseUrl: fake.responseUrl(`${corr.id}-click`),
    // Slack gives every click its own trigger_id.
    triggerId: `${corr.trigger}.click${++clickSeq}`,
    ephemeral: answer.via !== 'chat.postMessage' && answer.via !== 'chat.update',
    apiAppId: APP_ID,
  });
  return interactiveBody(blockActionsPayload(input));
}

/** The submission of `view` as the user sees it, with `changes` (block_id → typed value) made. */
export function viewSubmissionBody(
  view: Json,
  viewId: string,
  user: string,
  teamId: string,
  changes: Record<string, unknown>,
): string {
  const blocks = view['blocks'];
  return interactiveBody(
    viewSubmissionPayload({
      ...actor(teamId, user, user.toLowerCase()),
      callbackId: String(view['callback_id'] ?? ''),
      privateMetadata: String(view['private_metadata'] ?? ''),
      viewId,
      values: stateFromView(view, changes),
      ...(Array.isArray(blocks) ? { blocks } : {}),
    }),
  );
}

// Things that must never reach a Slack user.
export const STACK_FRAME = /^\s*at .+(\(|:\d+:\d+)/m;
export const ERROR_DUMP =
  /\b(TypeError|ReferenceError|SyntaxError|RangeError|ZodError|AbortError|Error): .*\n\s*at /;
export const RAW_ERROR_NAME =
  /\b(TypeError|ReferenceError|SyntaxError|RangeError|ZodError|undefined is not|Cannot read propert)/;
