/**
 * Requests no listener answers (a `view_closed`, a `block_actions` from a modal input, an interaction a
 * later manifest change enables) would otherwise wait for Bolt's 3 s timeout and get a 404 with an error
 * logged, and Slack shows the person an error. Once every listener has run without acknowledging the
 * request and without failing, it is acknowledged at once (an empty 200) and noted at debug level.
 * A listener that failed keeps Bolt's answer: its error is already logged.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AckFn, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../observability/log.ts';
import { currentRequestContext } from '../observability/request-context.ts';

const current = new AsyncLocalStorage<{ failed: boolean }>();

/** Called from the app's error handler: the request in hand failed in a listener. */
export function noteListenerFailure(): void {
  const state = current.getStore();
  if (state) state.failed = true;
}

/** What a debug line may say about a request: its kind and ids, never its tokens or response_url. */
export function describeRequest(body: Record<string, unknown>): Record<string, unknown> {
  const payload = typeof body['payload'] === 'string' ? safeJson(body['payload']) : body;
  const view = payload['view'] as Record<string, unknown> | undefined;
  const container = payload['container'] as Record<string, unknown> | undefined;
  const actions = Array.isArray(payload['actions'])
    ? (payload['actions'] as Array<Record<string, unknown>>)
    : [];
  const event = payload['event'] as Record<string, unknown> | undefined;
  const out: Record<string, unknown> = {
    type: payload['type'] ?? (typeof payload['command'] === 'string' ? 'slash_command' : 'unknown'),
  };
  if (typeof payload['command'] === 'string') out['command'] = payload['command'];
  if (event && typeof event['type'] === 'string') out['event'] = event['type'];
  if (actions.length) out['actionIds'] = actions.map((a) => a['action_id']);
  if (typeof payload['callback_id'] === 'string') out['callbackId'] = payload['callback_id'];
  if (view && typeof view['callback_id'] === 'string') out['callbackId'] = view['callback_id'];
  if (container && typeof container['type'] === 'string') out['container'] = container['type'];
  return out;
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function acknowledgeUnhandled(
  bolt: { processEvent(event: ReceiverEvent): Promise<void> },
  logger: Logger,
): void {
  const processEvent = bolt.processEvent.bind(bolt);
  bolt.processEvent = async (event: ReceiverEvent) => {
    let acked = false;
    const request = currentRequestContext();
    const ack: AckFn<unknown> = (response) => {
      acked = true;
      if (request) request.answered = true;
      return event.ack(response);
    };
    const state = { failed: false };
    await current.run(state, () => processEvent({ ...event, ack }));
    if (acked || state.failed) return;
    logger.debug(describeRequest(event.body), 'no listener handles this request: acknowledged');
    await ack();
  };
}
