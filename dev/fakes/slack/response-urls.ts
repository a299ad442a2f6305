/**
 * response_url endpoints: each URL is tied to a channel and person (and the clicked message), and a post to
 * it replaces or deletes that message, posts in the channel, or shows something to that person alone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { editMessage, nextId, nextTs, refusesBlocks, type SlackState, str, takeFault } from './state.ts';
import type { FakeEphemeral, FakeMessage, ResponseUrlContext } from './types.ts';
import { applyFault, parseArgs, send } from './wire.ts';

/** Makes a response_url for `context`. */
export function newResponseUrl(s: SlackState, origin: string, context: ResponseUrlContext): string {
  const id = nextId(s, 'R');
  s.responseUrls.set(id, { ...context });
  return `${origin}/response/${id}`;
}

export async function handleResponseUrl(
  s: SlackState,
  id: string,
  req: IncomingMessage,
  raw: string,
  res: ServerResponse,
) {
  const context = s.responseUrls.get(id);
  const body = parseArgs(req, raw);
  const post = (status: number) => {
    s.responsePosts.push({ id, body, context: context ?? { channel: '', user: '' }, status, at: s.now() });
    s.events.emit('change');
  };
  const fault = await applyFault(res, takeFault(s, 'response_url'));
  if (fault.answered) {
    post(fault.status ?? 200);
    return;
  }
  if (!context) {
    send(res, 404, 'no_such_response_url');
    post(404);
    return;
  }
  const text = str(body['text']);
  const blocks = Array.isArray(body['blocks']) ? (body['blocks'] as unknown[]) : undefined;
  // As Slack's incoming webhooks do (spec/README.md): HTTP 400 with the error as text.
  if (refusesBlocks(s, blocks)) {
    send(res, 400, 'invalid_blocks');
    post(400);
    return;
  }
  // A slash command's answer (no message of its own) replaced: the last ephemeral it showed is edited.
  const shown = s.ephemerals.findLast((e) => e.responseUrlId === id);
  const original = context.messageTs
    ? s.messages.find((m) => m.channel === context.channel && m.ts === context.messageTs)
    : undefined;
  if (body['delete_original'] === true || body['delete_original'] === 'true') {
    if (original) s.messages.splice(s.messages.indexOf(original), 1);
  } else if ((body['replace_original'] === true || body['replace_original'] === 'true') && original) {
    editMessage(s, original, body);
  } else if ((body['replace_original'] === true || body['replace_original'] === 'true') && shown) {
    shown.edits = (shown.edits ?? 0) + 1;
    if (text !== undefined) shown.text = text;
    if (blocks) shown.blocks = blocks;
    else delete shown.blocks;
  } else if (body['response_type'] === 'in_channel') {
    const m: FakeMessage = { channel: context.channel, ts: nextTs(s), via: 'response_url', history: [] };
    if (text !== undefined) m.text = text;
    if (blocks) m.blocks = blocks;
    const threadTs = str(body['thread_ts']);
    if (threadTs) m.threadTs = threadTs;
    s.messages.push(m);
  } else {
    const e: FakeEphemeral = {
      channel: context.channel,
      user: context.user,
      via: 'response_url',
      at: s.now(),
      responseUrlId: id,
    };
    if (text !== undefined) e.text = text;
    if (blocks) e.blocks = blocks;
    s.ephemerals.push(e);
  }
  send(res, 200, { ok: true });
  post(200);
}
