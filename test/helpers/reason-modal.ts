/**
 * Pause and Drain on a status message open a modal asking for a reason; the change happens when it is
 * submitted. This clicks the button, waits for the modal the app opened (views.open with the click's
 * trigger_id) and submits it as Slack would, with the reason typed (or the field left empty).
 */
import type { FakeView } from '../../dev/fakes/slack/server.ts';
import type { ClickOptions, Harness, Sent } from './app-harness.ts';

export interface ModalClick {
  click: Sent;
  view: FakeView;
  submit: Sent & { json: Record<string, unknown> | undefined };
}

/** The reason modal opened by the click whose trigger_id is `triggerId`. */
export function reasonModal(h: Harness, triggerId: string): Promise<FakeView> {
  return h.slack.waitFor(() =>
    h.slack.views.find((v) => v.triggerId === triggerId && v.view['callback_id'] === 'mq_reason'),
  );
}

let seq = 0;

/** Clicks, then submits the modal; `submitAs` lets a test submit as someone else. */
export async function clickThroughReasonModal(
  h: Harness,
  o: ClickOptions & { reason?: string; submitAs?: string },
): Promise<ModalClick> {
  const triggerId = o.triggerId ?? `trigger-reason-${process.pid}-${++seq}`;
  const click = await h.clickButton({ ...o, triggerId });
  const view = await reasonModal(h, triggerId);
  const submit = await submitReason(h, view, o.reason, o.submitAs ?? o.user);
  return { click, view, submit };
}

export function submitReason(h: Harness, view: FakeView, reason: string | undefined, user?: string) {
  return h.submitView({
    view,
    values: { reason: { v: { type: 'plain_text_input', value: reason ?? null } } },
    ...(user ? { user } : {}),
  });
}
