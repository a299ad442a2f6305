/**
 * A function_executed for a step this app does not offer (a step an older manifest declared, or one a newer
 * deployment added reaching a replica still on the previous version). No step listener matches it, so
 * nothing would ever complete it: Slack would show the workflow running until it times out. It is
 * acknowledged and failed at once, saying what to do; nothing is changed.
 */
import type { App } from '@slack/bolt';
import { stepUnknown } from '../../blocks/steps.ts';
import type { SlackDeps } from '../../deps.ts';
import { STEP_IDS } from '../../grammars/steps.ts';

const KNOWN: ReadonlySet<string> = new Set(STEP_IDS);

export function registerUnknownStep(app: App, deps: SlackDeps): void {
  app.event('function_executed', async ({ event, ack, fail }) => {
    const callbackId = event.function?.callback_id;
    if (typeof callbackId !== 'string' || KNOWN.has(callbackId)) return;
    await ack();
    const log = deps.logger.child({ step: callbackId, execution: event.function_execution_id });
    log.warn('a workflow step this version of the app does not offer was run; it fails');
    try {
      await fail({ error: stepUnknown(callbackId) });
    } catch (err) {
      log.error({ err }, 'could not fail an unknown workflow step');
    }
  });
}
